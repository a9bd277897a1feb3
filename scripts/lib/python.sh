# Shared by the scripts that make a Python venv (scripts/temporal-dev.sh, scripts/webui-tier.sh).
# Prints the first interpreter that has the venv module: $PYTHON, python3, /usr/bin/python3. The
# first python3 on the PATH may be one the current user cannot run (CI's unprivileged user keeps
# root's PATH, whose python3 may live under /root).
python_with_venv() {
  local candidate
  for candidate in ${PYTHON:-} python3 /usr/bin/python3; do
    if "$candidate" -c 'import venv, ensurepip' >/dev/null 2>&1; then
      echo "$candidate"
      return 0
    fi
  done
  return 1
}
