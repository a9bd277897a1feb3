#!/usr/bin/env bash
# The browser tier (docs/real-temporal.md, "Resolving a review from the Web UI"): `./genace dev`
# (the Temporal dev server with its Web UI, the CLI from the user's cache or installed there on
# first use), a `./genace worker`, and headless Chromium driven by Selenium
# (scripts/webui/operator_journey.py) through an operator's journey on encrypted payloads
# (GENACE_PAYLOAD_KEYS; ./genace dev's codec server decodes them): the sweeper's Schedule, an
# input decoded in the UI and encrypted in the raw history, a
# review found with GenaceNeedsReview = true, resolved with More Actions -> Send a Signal, a
# malformed resolution refused, an operation held in dispatch cancelled with Request Cancellation.
# Prints each step and "N passed, 0 failed"; exits 1 when a step fails.
#
# Usage: scripts/webui-tier.sh <venv-dir> [screenshot-dir]
#   the venv gets scripts/webui/requirements.txt from PyPI (once); screenshots go to the
#   directory (default target/web-ui in the repository). Chromium and its driver are Debian's
#   (apt-get install chromium chromium-driver): CHROMIUM and CHROMEDRIVER name others.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${1:?usage: $0 <venv-dir> [screenshot-dir]}"
SHOTS="${2:-$ROOT/target/web-ui}"
WORK="$(mktemp -d)"
chmod 755 "$WORK"
DEV_PID="" WORKER_PID=""
export CHROMIUM="${CHROMIUM:-/usr/bin/chromium}" CHROMEDRIVER="${CHROMEDRIVER:-/usr/bin/chromedriver}"

SCRIPT_NAME=webui
FAIL_LOGS=("dev stderr=$WORK/dev.err" "worker log=$WORK/worker.log")
# shellcheck source=lib/common.sh
source "$ROOT/scripts/lib/common.sh"
# shellcheck source=lib/python.sh
source "$ROOT/scripts/lib/python.sh"

cleanup() {
  local pid
  for pid in "$WORKER_PID" "$DEV_PID"; do
    [[ -n "$pid" ]] && kill -TERM "$pid" 2>/dev/null || true
  done
  # The launcher execs Java: its PID is the stack's own, which stops what it started.
  for pid in "$WORKER_PID" "$DEV_PID"; do
    [[ -n "$pid" ]] && { timeout 30 tail --pid="$pid" -f /dev/null || kill -KILL "$pid" 2>/dev/null || true; }
  done
  rm -rf "$WORK"
}
trap cleanup EXIT

[[ -x "$CHROMIUM" && -x "$CHROMEDRIVER" ]] \
  || fail "no Chromium at $CHROMIUM or no chromedriver at $CHROMEDRIVER (apt-get install chromium chromium-driver)"
log "$("$CHROMIUM" --version 2>/dev/null | head -n 1); $("$CHROMEDRIVER" --version | head -n 1)"
if ! "$VENV/bin/python" -c 'import selenium' 2>/dev/null; then
  log "Selenium from PyPI into $VENV (scripts/webui/requirements.txt)"
  python="$(python_with_venv)" || fail "no python3 with the venv module (on Debian: apt-get install python3-venv)"
  "$python" -m venv "$VENV" || fail "could not create a venv in $VENV"
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check -r "$ROOT/scripts/webui/requirements.txt" \
    || fail "pip install -r scripts/webui/requirements.txt"
fi
mkdir -p "$SHOTS"

read -r TEMPORAL_PORT UI_PORT SIM_PORT STATUS_PORT < <(free_ports 4)
cd "$ROOT"
# Every payload encrypted, as in a deployment that holds prompts: ./genace dev then runs a codec
# server for its Web UI, and the worker and the journey's ./genace calls hold the same key.
GENACE_PAYLOAD_KEYS="webui-1:$(head -c 32 /dev/urandom | base64)"
export GENACE_PAYLOAD_KEYS
log "./genace dev (Temporal dev server on $TEMPORAL_PORT, Web UI on $UI_PORT, simulator on $SIM_PORT)"
./genace dev --temporal-port "$TEMPORAL_PORT" --ui-port "$UI_PORT" --simulator-port "$SIM_PORT" \
  >"$WORK/dev.out" 2>"$WORK/dev.err" &
DEV_PID=$!
wait_for 180 grep -q '^export TEMPORAL_UI=' "$WORK/dev.out" || fail "./genace dev did not start the Temporal dev server with its Web UI"
grep -q "^Web UI:    http://127.0.0.1:$UI_PORT" "$WORK/dev.out" && pass "./genace dev prints the Web UI's address" \
  || fail "no Web UI line in ./genace dev's output"
eval "$(grep '^export' "$WORK/dev.out")"
GENACE_CODEC_ENDPOINT="$(sed -n 's/^Codec: *\(http[^ ]*\).*/\1/p' "$WORK/dev.out")"
[[ -n "$GENACE_CODEC_ENDPOINT" ]] && pass "./genace dev runs a codec server for its Web UI ($GENACE_CODEC_ENDPOINT)" \
  || fail "no Codec line in ./genace dev's output, though GENACE_PAYLOAD_KEYS is set"
TEMPORAL_CLI="$(sed -n 's/^starting Temporal (\(.*\) server start-dev)\.\.\.$/\1/p' "$WORK/dev.err")"
[[ -x "$TEMPORAL_CLI" ]] || fail "no Temporal CLI named in ./genace dev's stderr"
export GENACE_CODEC_ENDPOINT TEMPORAL_CLI
export GENACE_STATUS_ADDR="127.0.0.1:$STATUS_PORT" GENACE_WORKER_ID=webui-worker GENACE_DRAIN_SECONDS=5
log "./genace worker"
./genace worker >"$WORK/worker.log" 2>&1 &
WORKER_PID=$!
wait_for 90 answers_200 "http://$GENACE_STATUS_ADDR/startupz" || fail "the worker did not start"

log "the operator's journey in Chromium (screenshots in $SHOTS)"
GENACE_ROOT="$ROOT" WEBUI_SCREENSHOTS="$SHOTS" "$VENV/bin/python" "$ROOT/scripts/webui/operator_journey.py" \
  | tee "$WORK/journey.out" || fail "the operator's journey in the Web UI"
journey_passed="$(sed -n 's/^\([0-9]*\) passed, 0 failed$/\1/p' "$WORK/journey.out")"
[[ -n "$journey_passed" ]] || fail "the journey did not finish"
PASSED=$((PASSED + journey_passed))

kill -TERM "$WORKER_PID"
rc=0; wait "$WORKER_PID" || rc=$?
WORKER_PID=""
[[ "$rc" == 0 ]] && pass "the worker drains and exits 0" || fail "the worker exited $rc after SIGTERM"
echo "$PASSED passed, 0 failed"
