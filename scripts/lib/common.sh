# Shared by the scripts that drive ./genace from the outside (smoke tests, the contract tier, the
# launcher's signal check, the distribution smoke test). Source it after setting:
#   SCRIPT_NAME  the prefix of every line this prints, e.g. "smoke"
#   FAIL_LOGS    (optional array) "label=file" pairs: a failure prints the tail of each file
# and, for posts_for, SIMULATOR_URL (e.g. http://127.0.0.1:18787).
# A check calls pass or fail; a script ends with `echo "$PASSED passed, 0 failed"`.

PASSED=0
FAIL_LOGS=("${FAIL_LOGS[@]+"${FAIL_LOGS[@]}"}")

log() { echo "== $SCRIPT_NAME: $*"; }
pass() { PASSED=$((PASSED + 1)); log "ok: $*"; }
fail() {
  echo "== $SCRIPT_NAME: FAILED: $*" >&2
  local entry
  for entry in "${FAIL_LOGS[@]+"${FAIL_LOGS[@]}"}"; do
    echo "-- ${entry%%=*} (tail):" >&2
    tail -n 30 "${entry#*=}" >&2 2>/dev/null || true
  done
  echo "$PASSED passed, 1 failed"
  exit 1
}

# Waits up to $1 seconds for the command in the remaining arguments to succeed.
wait_for() {
  local deadline=$((SECONDS + $1))
  shift
  until "$@" >/dev/null 2>&1; do
    [[ $SECONDS -lt $deadline ]] || return 1
    sleep 0.5
  done
}

# The HTTP status code of a request (curl's arguments).
http_code() { curl -s -o /dev/null -w '%{http_code}' "$@"; }
answers_200() { [[ "$(http_code "$1")" == 200 ]]; }

# $1 free loopback ports, taken together so that they differ.
free_ports() {
  python3 -c '
import socket, sys
sockets = [socket.socket() for _ in range(int(sys.argv[1]))]
for s in sockets: s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in sockets])' "$1"
}

# The ledger's phase of operation $1, through the repository's launcher (needs DATABASE_URL).
phase_of() {
  "$ROOT/genace" ops show "$1" --json 2>/dev/null \
    | python3 -c 'import json,sys; print(json.load(sys.stdin)["phase"])'
}
has_phase() { [[ "$(phase_of "$1")" == "$2" ]]; }

# How many POSTs the simulator at SIMULATOR_URL received for operation $1.
posts_for() {
  curl -s "$SIMULATOR_URL/_sim/stats" \
    | python3 -c "import json,sys; print(json.load(sys.stdin)['posts_by_operation'].get(sys.argv[1], 0))" "$1"
}
