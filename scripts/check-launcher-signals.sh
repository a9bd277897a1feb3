#!/usr/bin/env bash
# Sends SIGTERM to the PID of `./genace dev` alone, as a supervisor (systemd, a container runtime,
# CI) would, and checks that nothing it started is left: the Java process, the embedded PostgreSQL,
# the Temporal dev server (when GENACE_TEMPORAL_CLI names the Temporal CLI; else the in-process test
# server), and their temporary directories. Run it as root too: that is where the embedded
# PostgreSQL runs as another user. Prints "N passed, 0 failed" when every check holds.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TEMPORAL_PORT="${CHECK_TEMPORAL_PORT:-17433}"
UI_PORT="${CHECK_UI_PORT:-17434}"
SIM_PORT="${CHECK_SIMULATOR_PORT:-18887}"
DB_PORT="${CHECK_DATABASE_PORT:-15444}"
WORK="$(mktemp -d)"
LAUNCHER=""

SCRIPT_NAME=signals
FAIL_LOGS=("dev stderr=$WORK/dev.err")
# shellcheck source=lib/common.sh
source "$ROOT/scripts/lib/common.sh"

cleanup() {
  # Only if a check failed half-way: what this script started is stopped by its PID.
  [[ -n "$LAUNCHER" ]] && kill -KILL "$LAUNCHER" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

# Every process below $1, depth first.
descendants() {
  local child
  for child in $(ps -o pid= --ppid "$1" 2>/dev/null); do
    echo "$child"
    descendants "$child"
  done
}
# A zombie (state Z) has exited: it only waits for its parent, or for init, to reap it.
alive() {
  local state
  state="$(ps -o stat= -p "$1" 2>/dev/null)" || return 1
  [[ -n "$state" && "$state" != Z* ]]
}

temporal_args=(--test-server)
if [[ -n "${GENACE_TEMPORAL_CLI:-}" ]]; then
  temporal_args=(--ui-port "$UI_PORT")
fi

cd "$ROOT"
./genace --version >/dev/null # builds first, so that the launcher below only runs
log "starting ./genace dev as $(id -un) (${temporal_args[*]})"
DATABASE_URL= ./genace dev "${temporal_args[@]}" --temporal-port "$TEMPORAL_PORT" \
  --simulator-port "$SIM_PORT" --database-port "$DB_PORT" >"$WORK/dev.out" 2>"$WORK/dev.err" &
LAUNCHER=$!
deadline=$((SECONDS + 180))
until grep -q '^export GENACE_ARTIFACT_DIR' "$WORK/dev.out"; do
  alive "$LAUNCHER" || fail "./genace dev exited before it was up"
  [[ $SECONDS -lt $deadline ]] || fail "./genace dev did not come up"
  sleep 0.5
done

# What the launcher started, found before it is signalled.
mapfile -t children < <(descendants "$LAUNCHER")
postmaster="$(pgrep -f -- "-p $DB_PORT" | head -n 1 || true)"
[[ -n "$postmaster" ]] || fail "no PostgreSQL found on port $DB_PORT"
data_dir="$(tr '\0' ' ' </proc/"$postmaster"/cmdline | sed -n 's/.*-D \([^ ]*\).*/\1/p')"
artifacts="$(sed -n 's/^export GENACE_ARTIFACT_DIR=//p' "$WORK/dev.out")"
dev_home="$(dirname "$artifacts")"
temporal_server=""
if [[ -n "${GENACE_TEMPORAL_CLI:-}" ]]; then
  temporal_server="$(pgrep -f -- "--port $TEMPORAL_PORT" | grep -vx "$LAUNCHER" | head -n 1 || true)"
  [[ -n "$temporal_server" ]] || fail "no Temporal dev server found on port $TEMPORAL_PORT"
fi
log "launcher $LAUNCHER ($(ps -o comm= -p "$LAUNCHER")), ${#children[@]} children," \
  "PostgreSQL $postmaster (data $data_dir), temporary directory $dev_home" \
  "${temporal_server:+, Temporal dev server $temporal_server}"

kill -TERM "$LAUNCHER"
deadline=$((SECONDS + 60))
while alive "$LAUNCHER"; do
  [[ $SECONDS -lt $deadline ]] || fail "the launcher did not exit within 60 s of SIGTERM"
  sleep 0.2
done
pass "the launcher exited after SIGTERM to its PID"
LAUNCHER=""

left=()
for pid in "${children[@]}" "$postmaster" $temporal_server; do
  alive "$pid" && left+=("$pid $(ps -o user=,args= -p "$pid" | cut -c1-120)")
done
[[ ${#left[@]} -eq 0 ]] && pass "nothing it started is running" || fail "still running: ${left[*]}"
[[ ! -e "$dev_home" ]] && pass "its temporary directory is gone" || fail "$dev_home is left"
[[ -z "$data_dir" || ! -e "$data_dir" ]] && pass "PostgreSQL's data directory is gone" \
  || fail "$data_dir is left"
echo "$PASSED passed, 0 failed"
