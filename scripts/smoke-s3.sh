#!/usr/bin/env bash
# Drives `./genace worker` with GENACE_ARTIFACT_URL=s3://... against a real S3 server (S3Proxy, from
# the jar the build copies to activities/target/s3proxy) and `./genace dev`: a missing bucket is one
# line at start naming the variable; then operations are delivered to their deterministic keys with
# intact bytes, the manifest records each object's URI, size and SHA-256, and `ops show` prints
# them. Prints "N passed, 0 failed" when every check holds.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TEMPORAL_PORT="${SMOKE_TEMPORAL_PORT:-17334}"
SIM_PORT="${SMOKE_SIMULATOR_PORT:-18788}"
STATUS_PORT="${SMOKE_STATUS_PORT:-18687}"
S3_PORT="${SMOKE_S3_PORT:-18555}"
S3PROXY_JAR="${S3PROXY_JAR:-$ROOT/activities/target/s3proxy/s3proxy.jar}"
BUCKET="genace-smoke"
WORK="$(mktemp -d)"
chmod 755 "$WORK"
WORKER_PID=""
S3_PID=""
DEV_PID=""

SCRIPT_NAME=smoke-s3
FAIL_LOGS=("worker log=$WORK/worker.log" "s3proxy log=$WORK/s3proxy.log" "dev log=$WORK/dev.err")
# shellcheck source=lib/common.sh
source "$ROOT/scripts/lib/common.sh"

stop() { [[ -n "$1" ]] && kill -TERM "$1" 2>/dev/null && wait "$1" 2>/dev/null || true; }
cleanup() {
  stop "$WORKER_PID"
  stop "$DEV_PID"
  stop "$S3_PID"
  rm -rf "$WORK"
}
trap cleanup EXIT

s3() {
  curl -sf --aws-sigv4 "aws:amz:us-east-1:s3" --user "smoke-id:smoke-secret" \
    -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" "$@"
}

[[ -f "$S3PROXY_JAR" ]] || fail "no S3Proxy jar at $S3PROXY_JAR (mvn -B test-compile -pl activities copies it)"
cat >"$WORK/s3proxy.properties" <<PROPS
s3proxy.endpoint=http://127.0.0.1:$S3_PORT
s3proxy.authorization=aws-v2-or-v4
s3proxy.identity=smoke-id
s3proxy.credential=smoke-secret
jclouds.provider=filesystem
jclouds.filesystem.basedir=$WORK/blobs
PROPS
mkdir -p "$WORK/blobs"
log "starting S3Proxy on 127.0.0.1:$S3_PORT"
java -jar "$S3PROXY_JAR" --properties "$WORK/s3proxy.properties" >"$WORK/s3proxy.log" 2>&1 &
S3_PID=$!
wait_for 120 s3 -o /dev/null "http://127.0.0.1:$S3_PORT/" || fail "S3Proxy did not answer"
s3 -X PUT "http://127.0.0.1:$S3_PORT/$BUCKET" >/dev/null || fail "could not create the bucket"

cd "$ROOT"
./genace --help >/dev/null # builds the launcher first, if it must, outside the waits below
log "starting the dev stack (Temporal test server on $TEMPORAL_PORT, simulator on $SIM_PORT)"
./genace dev --test-server --temporal-port "$TEMPORAL_PORT" --simulator-port "$SIM_PORT" \
  >"$WORK/dev.out" 2>"$WORK/dev.err" &
DEV_PID=$!
wait_for 180 grep -q '^export GENACE_ARTIFACT_DIR' "$WORK/dev.out" || fail "dev stack did not start"
eval "$(grep '^export' "$WORK/dev.out")"
unset GENACE_ARTIFACT_DIR
export GENACE_STATUS_ADDR="127.0.0.1:$STATUS_PORT" GENACE_DRAIN_SECONDS=5 GENACE_WORKER_ID=smoke-s3
export AWS_ENDPOINT_URL="http://127.0.0.1:$S3_PORT" AWS_REGION=us-east-1 AWS_EC2_METADATA_DISABLED=true
export AWS_ACCESS_KEY_ID=smoke-id AWS_SECRET_ACCESS_KEY=smoke-secret
S="http://127.0.0.1:$STATUS_PORT"

log "a worker pointed at a missing bucket"
GENACE_ARTIFACT_URL="s3://no-such-bucket/x" ./genace worker >"$WORK/worker.log" 2>&1 &
WORKER_PID=$!
wait_for 90 grep -q 'artifact_store_unavailable' "$WORK/worker.log" || fail "no startup problem for a missing bucket"
grep -q 'GENACE_ARTIFACT_URL=s3://no-such-bucket/x: bucket no-such-bucket does not exist' "$WORK/worker.log" \
  && pass "a missing bucket is one line at start naming the variable" || fail "message: $(grep artifact_store "$WORK/worker.log" | head -1)"
! answers_200 "$S/startupz" && pass "the worker does not start without its bucket" || fail "started without a bucket"
grep -q 'smoke-secret' "$WORK/worker.log" && fail "the secret key is in the log" || pass "no secret in the log"
stop "$WORKER_PID"; WORKER_PID=""

log "a worker delivering to s3://$BUCKET/runs"
export GENACE_ARTIFACT_URL="s3://$BUCKET/runs"
./genace worker >"$WORK/worker.log" 2>&1 &
WORKER_PID=$!
wait_for 90 answers_200 "$S/startupz" || fail "worker never started"
pass "the worker starts with its bucket reachable"
for op in s3-one s3-two s3-three; do
  ./genace submit --model image-v1 --input "{\"prompt\":\"$op\"}" --operation-id "$op" >/dev/null
done
for op in s3-one s3-two s3-three; do
  wait_for 90 has_phase "$op" delivered || fail "$op not delivered"
done
pass "three operations delivered"

checked=0
for op in s3-one s3-two s3-three; do
  ./genace ops show "$op" --json >"$WORK/$op.json"
  while read -r uri bytes sha; do
    [[ "$uri" == "s3://$BUCKET/runs/generations/$op/"* ]] || fail "$op: unexpected key $uri"
    s3 -o "$WORK/object" "http://127.0.0.1:$S3_PORT/${uri#s3://}" || fail "$uri cannot be read"
    [[ "$(stat -c %s "$WORK/object")" == "$bytes" ]] || fail "$uri: size differs"
    [[ "$(sha256sum "$WORK/object" | cut -d' ' -f1)" == "$sha" ]] || fail "$uri: sha256 differs"
    ./genace ops show "$op" | grep -q "$uri  $bytes bytes  sha256 $sha" || fail "ops show lacks $uri"
    checked=$((checked + 1))
  done < <(python3 -c '
import json, sys
for a in json.load(open(sys.argv[1]))["delivery_manifest"]["artifacts"]:
    print(a["uri"], a["bytes"], a["sha256"])' "$WORK/$op.json")
done
[[ $checked -ge 3 ]] || fail "only $checked objects in the manifests"
pass "$checked objects at their deterministic keys, bytes intact, in the manifests and ops show"

kill -TERM "$WORKER_PID"
rc=0; wait "$WORKER_PID" || rc=$?
WORKER_PID=""
[[ "$rc" == 0 ]] && pass "SIGTERM drains and exits 0" || fail "worker exited $rc after SIGTERM"

echo "$PASSED passed, 0 failed"
