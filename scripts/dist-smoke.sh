#!/usr/bin/env bash
# Unpacks the self-contained distribution into an empty directory and runs it on a host PATH with
# no Java and no Maven: `bin/genace --help`, `bin/genace db migrate` into a fresh database, and
# `bin/genace worker` delivering one operation submitted with `bin/genace submit`. The stack it
# runs against (Temporal test server, PostgreSQL, the simulator) is the repository's `./genace dev`:
# a production distribution is tested against services it does not start itself.
# Prints "N passed, 0 failed" when every check holds.
#
# Usage: scripts/dist-smoke.sh [ARCHIVE]   (default: dist/target/genace-*-linux-x86_64.tar.gz,
#        built by `mvn -B -Pdist package -DskipTests`)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ARCHIVE="${1:-$(ls "$ROOT"/dist/target/genace-*-linux-x86_64.tar.gz 2>/dev/null | head -n 1)}"
TEMPORAL_PORT="${DIST_SMOKE_TEMPORAL_PORT:-17433}"
SIM_PORT="${DIST_SMOKE_SIMULATOR_PORT:-18887}"
STATUS_PORT="${DIST_SMOKE_STATUS_PORT:-18786}"
WORK="$(mktemp -d)"
DEV_PID=""
WORKER_PID=""

SCRIPT_NAME=dist-smoke
FAIL_LOGS=("worker log=$WORK/worker.log" "dev log=$WORK/dev.err")
# shellcheck source=lib/common.sh
source "$ROOT/scripts/lib/common.sh"

cleanup() {
  [[ -n "$WORKER_PID" ]] && kill -TERM "$WORKER_PID" 2>/dev/null && wait "$WORKER_PID" 2>/dev/null || true
  # The dev stack runs in a process group of its own (setsid): stop that group only.
  [[ -n "$DEV_PID" ]] && kill -TERM -- "-$DEV_PID" 2>/dev/null && wait "$DEV_PID" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

[[ -f "$ARCHIVE" ]] || fail "no distribution archive (build it: mvn -B -Pdist package -DskipTests)"
command -v psql >/dev/null || fail "psql is needed to create the fresh database"
log "archive $ARCHIVE ($(du -h "$ARCHIVE" | cut -f1))"

# An empty directory, and a PATH holding only what bin/genace itself calls: no java, no mvn.
mkdir "$WORK/unpacked" "$WORK/tools"
tar -xzf "$ARCHIVE" -C "$WORK/unpacked"
DIST="$(find "$WORK/unpacked" -mindepth 1 -maxdepth 1)"
[[ "$(wc -l <<<"$DIST")" == 1 && -x "$DIST/bin/genace" ]] || fail "the archive holds one directory with bin/genace"
for tool in sh dirname readlink; do ln -s "$(command -v "$tool")" "$WORK/tools/$tool"; done
# bin/genace with only DIST_ENV in its environment. `exec` makes the background worker's $! the
# JVM itself, so that SIGTERM reaches it.
dist() { (exec env -i PATH="$WORK/tools" HOME="$WORK" "${DIST_ENV[@]}" "$DIST/bin/genace" "$@"); }
DIST_ENV=()

# jdeps cannot see the modules loaded by name; without them TLS and gRPC's DNS lookups break late.
modules="$("$DIST/runtime/bin/java" --list-modules)"
grep -q '^jdk.crypto.ec@' <<<"$modules" && grep -q '^jdk.naming.dns@' <<<"$modules" \
  && pass "the runtime holds jdk.crypto.ec and jdk.naming.dns" || fail "runtime modules: $modules"

dist --help >"$WORK/help.txt" || fail "bin/genace --help exited $?"
grep -q 'worker' "$WORK/help.txt" && pass "bin/genace --help runs on the bundled runtime" || fail "help: $(cat "$WORK/help.txt")"
rc=0; dist no-such-command 2>/dev/null || rc=$?
[[ "$rc" == 2 ]] && pass "an unknown command exits 2" || fail "unknown command exited $rc"

log "starting the repository's ./genace dev (Temporal test server on $TEMPORAL_PORT, simulator on $SIM_PORT)"
setsid "$ROOT/genace" dev --test-server --temporal-port "$TEMPORAL_PORT" --simulator-port "$SIM_PORT" \
  >"$WORK/dev.out" 2>"$WORK/dev.err" </dev/null &
DEV_PID=$!
wait_for 180 grep -q '^export GENACE_ARTIFACT_DIR' "$WORK/dev.out" || fail "dev stack did not start"
eval "$(grep '^export' "$WORK/dev.out")"

# A fresh database on the dev stack's PostgreSQL, so that the distribution's migration is the one
# that creates the schema the worker then runs on.
psql "$DATABASE_URL" -qc 'CREATE DATABASE genace_dist_smoke' || fail "could not create the database"
FRESH_URL="${DATABASE_URL%/*}/genace_dist_smoke"
DIST_ENV=(DATABASE_URL="$FRESH_URL")
dist db migrate >"$WORK/migrate.txt" || fail "bin/genace db migrate exited $?: $(cat "$WORK/migrate.txt")"
grep -Eq '^applied [1-9][0-9]* migration' "$WORK/migrate.txt" && pass "bin/genace db migrate applies the schema" \
  || fail "migrate: $(cat "$WORK/migrate.txt")"
[[ "$(psql "$FRESH_URL" -Atc "SELECT to_regclass('app_generation_operations') IS NOT NULL")" == t ]] \
  && pass "the operations table exists" || fail "no operations table after migrate"

DIST_ENV=(
  TEMPORAL_ADDRESS="$TEMPORAL_ADDRESS" TEMPORAL_NAMESPACE="$TEMPORAL_NAMESPACE"
  DATABASE_URL="$FRESH_URL" GENACE_BASE_URL="$GENACE_BASE_URL" GENACE_API_KEY="$GENACE_API_KEY"
  GENACE_ARTIFACT_DIR="$WORK/artifacts" GENACE_STATUS_ADDR="127.0.0.1:$STATUS_PORT"
  GENACE_WORKER_ID=dist-smoke-worker GENACE_DRAIN_SECONDS=5
)
log "starting bin/genace worker"
(exec env -i PATH="$WORK/tools" HOME="$WORK" "${DIST_ENV[@]}" "$DIST/bin/genace" worker) \
  >"$WORK/worker.log" 2>&1 &
WORKER_PID=$!
S="http://127.0.0.1:$STATUS_PORT"
started_at=$SECONDS
wait_for 120 curl -sf "$S/startupz" || fail "the worker never started"
log "worker started (/startupz 200) in about $((SECONDS - started_at)) s"
curl -sf "$S/readyz" >/dev/null && pass "the worker starts and is ready" || fail "/readyz"

dist submit --model image-v1 --input '{"prompt":"a packaged fox"}' --operation-id dist-smoke-1 >/dev/null \
  || fail "bin/genace submit exited $?"
phase() { dist ops show dist-smoke-1 --json 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["phase"])'; }
delivered() { [[ "$(phase)" == delivered ]]; }
wait_for 90 delivered && pass "the worker delivers an operation" || fail "dist-smoke-1 is $(phase || true)"
[[ -n "$(find "$WORK/artifacts" -type f -path '*dist-smoke-1*' -size +0)" ]] \
  && pass "its artifact is in GENACE_ARTIFACT_DIR" || fail "no artifact under $WORK/artifacts"

# Informational, for docs/deployment.md's sizing: the worker's resident memory after one operation.
log "worker resident memory after one operation: $(($(ps -o rss= -p "$WORKER_PID") / 1024)) MiB"

kill -TERM "$WORKER_PID"
rc=0; wait "$WORKER_PID" || rc=$?
WORKER_PID=""
[[ "$rc" == 0 ]] && pass "SIGTERM drains the worker and it exits 0" || fail "the worker exited $rc after SIGTERM"

echo "$PASSED passed, 0 failed"
