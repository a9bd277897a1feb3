package com.genace.ops;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.genace.activities.controls.WorkerControls;
import com.genace.activities.ledger.ClaimResult;
import com.genace.activities.ledger.Lease;
import com.genace.activities.ledger.NewOperation;
import com.genace.activities.ledger.OperationsLedger;
import com.genace.activities.ledger.WriteResult;
import com.genace.activities.testing.DatabaseExtension;
import com.genace.activities.testing.TestDatabase;
import com.genace.client.model.NextAction;
import com.genace.ops.support.CliRunner;
import com.genace.workflows.model.RemoteStatus;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** {@code ops list}, {@code ops show} and the dispatch pause, against the real table. */
@ExtendWith(DatabaseExtension.class)
class OpsInspectionCommandsTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final OperationsLedger ledger = new OperationsLedger(TestDatabase.dataSource());
  private final Map<String, String> env = Map.of("DATABASE_URL", TestDatabase.databaseUrlValue());

  @Test
  void list_prints_an_aligned_table_newest_first() {
    pending("op-a");
    inReview("op-bb");

    CliRunner.Result result = CliRunner.run(env, "ops", "list");

    assertThat(result.exitCode()).as(result.err()).isZero();
    List<String> lines = result.out().lines().toList();
    assertThat(lines.get(0))
        .startsWith("OPERATION  PHASE      ACCOUNT  NEXT       REMOTE JOB  REV  AGE  UPDATED");
    assertThat(lines.get(0)).endsWith("REASON");
    assertThat(lines.get(1))
        .startsWith("op-bb      in_review  default  reconcile  -           1    0s   ")
        .endsWith("post_outcome_unknown, waiting 0s");
    assertThat(lines.get(2))
        .startsWith("op-a       pending    default  dispatch   -           0    0s   ")
        .endsWith(" -");
    assertThat(lines).hasSize(3);
  }

  @Test
  void list_pages_with_a_last_line_naming_the_next_page() {
    for (int i = 1; i <= 5; i++) {
      pending("op-" + i);
    }

    CliRunner.Result first = CliRunner.run(env, "ops", "list", "--limit", "2");
    String next = first.out().lines().reduce((a, b) -> b).orElseThrow();
    CliRunner.Result second = CliRunner.run(env, "ops", "list", "--limit", "2", "--after", "op-4");
    CliRunner.Result oldest =
        CliRunner.run(env, "ops", "list", "--sort", "oldest", "--limit", "10");
    CliRunner.Result json = CliRunner.run(env, "ops", "list", "--limit", "2", "--json");

    assertThat(first.out().lines().skip(1).limit(2).map(l -> l.split(" ")[0]))
        .containsExactly("op-5", "op-4");
    assertThat(next).isEqualTo("more operations follow: ./genace ops list --limit 2 --after op-4");
    assertThat(second.out().lines().skip(1).limit(2).map(l -> l.split(" ")[0]))
        .containsExactly("op-3", "op-2");
    assertThat(oldest.out().lines().skip(1).map(l -> l.split(" ")[0]))
        .containsExactly("op-1", "op-2", "op-3", "op-4", "op-5");
    assertThat(json.err()).contains("more operations follow: ").contains("--after op-4");
  }

  @Test
  void list_filters_by_account_and_age_and_shows_why_an_operation_failed() {
    assertThat(ledger.create(new NewOperation("op-acme", "image-v1", "{}", "acme"))).isTrue();
    pending("op-other");
    inReview("op-old");
    com.genace.activities.testing.QueryPlans.execute(
        TestDatabase.dataSource(),
        "UPDATE app_generation_operations SET created_at = now() - interval '2 hours',"
            + " review_opened_at = now() - interval '90 minutes' WHERE operation_id = 'op-old'",
        "UPDATE app_generation_operations SET phase = 'failed', next_action = 'none',"
            + " failure_reason = 'render failed: nsfw' WHERE operation_id = 'op-other'");

    CliRunner.Result acme = CliRunner.run(env, "ops", "list", "--account", "acme");
    CliRunner.Result old = CliRunner.run(env, "ops", "list", "--older-than", "1h");
    CliRunner.Result failed = CliRunner.run(env, "ops", "list", "--phase", "failed");
    CliRunner.Result badAge = CliRunner.run(env, "ops", "list", "--older-than", "soon");
    CliRunner.Result unknownAfter = CliRunner.run(env, "ops", "list", "--after", "nope");

    assertThat(acme.out().lines().skip(1).map(l -> l.split(" ")[0])).containsExactly("op-acme");
    assertThat(old.out().lines().skip(1))
        .singleElement()
        .asString()
        .startsWith("op-old")
        .contains(" 2h ")
        .endsWith("post_outcome_unknown, waiting 1h30m");
    assertThat(failed.out().lines().skip(1))
        .singleElement()
        .asString()
        .endsWith("render failed: nsfw");
    assertThat(badAge.exitCode()).isEqualTo(2);
    assertThat(badAge.err()).contains("'soon' is not an age such as 90s, 30m, 1h or 2d");
    assertThat(unknownAfter.exitCode()).isEqualTo(1);
    assertThat(unknownAfter.err()).contains("unknown operation 'nope'");
  }

  @Test
  void list_older_than_finds_a_render_observed_for_hours_and_not_a_young_one() {
    observing("op-long");
    observing("op-young");
    inReview("op-old-review");
    com.genace.activities.testing.QueryPlans.execute(
        TestDatabase.dataSource(),
        "UPDATE app_generation_operations SET created_at = now() - interval '7 hours',"
            + " phase_since = now() - interval '6 hours 50 minutes'"
            + " WHERE operation_id IN ('op-long', 'op-old-review')",
        "UPDATE app_generation_operations SET created_at = now() - interval '5 hours'"
            + " WHERE operation_id = 'op-young'");

    CliRunner.Result result =
        CliRunner.run(env, "ops", "list", "--phase", "observing", "--older-than", "6h");

    assertThat(result.exitCode()).as(result.err()).isZero();
    assertThat(result.out().lines().skip(1))
        .singleElement()
        .asString()
        .startsWith("op-long ")
        .contains(" observing ")
        .contains(" 7h ");
  }

  @Test
  void list_filters_by_phase_and_limits() {
    pending("op-1");
    pending("op-2");
    inReview("op-3");

    CliRunner.Result inReview = CliRunner.run(env, "ops", "list", "--phase", "in_review");
    CliRunner.Result limited = CliRunner.run(env, "ops", "list", "--limit", "1");
    CliRunner.Result none = CliRunner.run(env, "ops", "list", "--phase", "delivered");

    assertThat(inReview.out().lines().skip(1).map(l -> l.split(" ")[0])).containsExactly("op-3");
    assertThat(limited.out().lines()).hasSize(3);
    assertThat(limited.out().lines().reduce((a, b) -> b).orElseThrow())
        .startsWith("more operations follow: ");
    assertThat(none.out()).isEqualTo("no operations in phase delivered\n");
  }

  @Test
  void list_as_json_gives_one_object_per_operation() throws Exception {
    pending("op-json");

    CliRunner.Result result = CliRunner.run(env, "ops", "list", "--json");

    JsonNode array = JSON.readTree(result.out());
    assertThat(array.size()).isEqualTo(1);
    assertThat(array.get(0).get("operation_id").asText()).isEqualTo("op-json");
    assertThat(array.get(0).get("phase").asText()).isEqualTo("pending");
    assertThat(array.get(0).get("next_action").asText()).isEqualTo("dispatch");
    assertThat(array.get(0).get("remote_job_id").isNull()).isTrue();
  }

  @Test
  void an_unknown_phase_is_a_usage_error_naming_the_accepted_phases() {
    CliRunner.Result result = CliRunner.run(env, "ops", "list", "--phase", "done");

    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err())
        .contains("unknown phase 'done'; accepted phases: pending, submitting, observing,")
        .contains("Usage: genace ops list");
  }

  @Test
  void list_without_a_database_url_names_the_variable() {
    CliRunner.Result result = CliRunner.run(Map.of(), "ops", "list");

    assertThat(result.exitCode()).isEqualTo(1);
    assertThat(result.err()).isEqualTo("genace: error: DATABASE_URL is not set\n");
  }

  @Test
  void an_unreachable_database_fails_without_showing_the_password() {
    CliRunner.Result result =
        CliRunner.run(
            Map.of("DATABASE_URL", "postgresql://u:s3cret@127.0.0.1:1/db"), "ops", "list");

    assertThat(result.exitCode()).isEqualTo(1);
    assertThat(result.err())
        .startsWith("genace: error: database jdbc:postgresql://127.0.0.1:1/db (user u)")
        .doesNotContain("s3cret");
  }

  @Test
  void list_against_an_unmigrated_database_says_to_migrate() throws Exception {
    try (var connection = TestDatabase.dataSource().getConnection();
        var statement = connection.createStatement()) {
      statement.execute("DROP DATABASE IF EXISTS ops_empty");
      statement.execute("CREATE DATABASE ops_empty");
    }
    String url = TestDatabase.databaseUrlValue().replaceFirst("/postgres(\\?|$)", "/ops_empty$1");

    CliRunner.Result result = CliRunner.run(Map.of("DATABASE_URL", url), "ops", "list");

    assertThat(result.exitCode()).isEqualTo(1);
    assertThat(result.err()).contains("does not exist").contains("./genace db migrate");
  }

  @Test
  void list_against_a_missing_database_does_not_say_to_migrate() {
    String url = TestDatabase.databaseUrlValue().replaceFirst("/postgres(\\?|$)", "/ops_nowhere$1");

    CliRunner.Result result = CliRunner.run(Map.of("DATABASE_URL", url), "ops", "list");

    assertThat(result.exitCode()).isEqualTo(1);
    assertThat(result.err()).contains("ops_nowhere").doesNotContain("db migrate");
  }

  @Test
  void show_prints_the_operation_and_its_history_with_denied_writes_marked() {
    Lease stale = deniedWrite("op-show");

    CliRunner.Result result = CliRunner.run(env, "ops", "show", "op-show");

    assertThat(result.exitCode()).as(result.err()).isZero();
    assertThat(result.out())
        .contains("operation   op-show")
        .contains("phase       pending (next action: dispatch)")
        .contains("model       image-v1")
        .contains("account     default")
        .contains("request     {\"prompt\": \"a fox\"}")
        .contains("history (");
    assertThat(result.out().lines().filter(l -> l.contains("DENIED")))
        .singleElement()
        .asString()
        .contains("submitting DENIED")
        .contains(stale.owner())
        .contains("\"denied\": \"lease\"");
  }

  @Test
  void show_as_json_includes_review_and_history() throws Exception {
    inReview("op-review");

    CliRunner.Result result = CliRunner.run(env, "ops", "show", "op-review", "--json");

    JsonNode json = JSON.readTree(result.out());
    assertThat(json.get("phase").asText()).isEqualTo("in_review");
    assertThat(json.get("review").get("reason").asText()).isEqualTo("post_outcome_unknown");
    assertThat(json.get("request").get("prompt").asText()).isEqualTo("a fox");
    assertThat(json.get("history").findValuesAsText("event"))
        .containsSubsequence("created", "submitting", "review_opened");
  }

  @Test
  void show_never_prints_the_query_of_a_presigned_output_url_in_text_or_json() throws Exception {
    pending("op-presigned");
    Lease dispatch = claim(ledger, "op-presigned", "worker-a");
    assertThat(ledger.markSubmitting(dispatch)).isEqualTo(WriteResult.APPLIED);
    assertThat(ledger.recordAccepted(dispatch, "gen_1")).isEqualTo(WriteResult.APPLIED);
    Lease observe = claim(ledger, "op-presigned", "worker-a", NextAction.OBSERVE);
    String url =
        "https://cdn.genace.example/out/gen_1.png?X-Amz-Signature=s3cr3t&X-Amz-Credential=AKIA";
    assertThat(
            ledger.recordSnapshot(
                observe,
                RemoteStatus.SUCCEEDED,
                "{\"id\":\"gen_1\",\"status\":\"succeeded\",\"outputs\":[{\"url\":\""
                    + url
                    + "\",\"content_type\":\"image/png\",\"bytes\":3}]}",
                null))
        .isEqualTo(WriteResult.APPLIED);
    assertThat(ledger.get("op-presigned").remoteSnapshotJson().orElseThrow())
        .as("the ledger keeps the whole URL: delivery downloads with it")
        .contains("s3cr3t");

    CliRunner.Result text = CliRunner.run(env, "ops", "show", "op-presigned");
    CliRunner.Result json = CliRunner.run(env, "ops", "show", "op-presigned", "--json");

    assertThat(text.exitCode()).as(text.err()).isZero();
    assertThat(text.out())
        .contains("https://cdn.genace.example/out/gen_1.png?<query redacted>")
        .doesNotContain("s3cr3t", "AKIA");
    assertThat(json.out()).doesNotContain("s3cr3t", "AKIA");
    assertThat(JSON.readTree(json.out()).at("/remote/snapshot/outputs/0/url").asText())
        .isEqualTo("https://cdn.genace.example/out/gen_1.png?<query redacted>");
  }

  @Test
  void show_of_an_unknown_operation_exits_1() {
    CliRunner.Result result = CliRunner.run(env, "ops", "show", "nope");

    assertThat(result.exitCode()).isEqualTo(1);
    assertThat(result.err()).isEqualTo("genace: error: unknown operation 'nope'\n");
  }

  @Test
  void show_prints_each_delivered_object_with_its_uri_size_and_checksum() {
    delivered(
        "op-done",
        "{\"artifacts\":[{\"key\":\"generations/op-done/gen_1/0.png\","
            + "\"uri\":\"s3://art/p/generations/op-done/gen_1/0.png\",\"bytes\":2048,"
            + "\"sha256\":\""
            + "a".repeat(64)
            + "\",\"contentType\":\"image/png\"}]}");

    CliRunner.Result result = CliRunner.run(env, "ops", "show", "op-done");

    assertThat(result.exitCode()).as(result.err()).isZero();
    assertThat(result.out())
        .contains("delivery    1 artifact(s)\n")
        .contains(
            "            s3://art/p/generations/op-done/gen_1/0.png  2048 bytes  sha256 "
                + "a".repeat(64)
                + "\n");
  }

  @Test
  void show_says_why_a_delivery_keeps_failing() throws Exception {
    observing("op-bad");
    Lease observe = claim(ledger, "op-bad", "worker-a", NextAction.OBSERVE);
    ledger.recordSnapshot(
        observe,
        RemoteStatus.SUCCEEDED,
        "{\"id\":\"gen_1\",\"status\":\"succeeded\",\"outputs\":[]}",
        null);
    Lease deliver = claim(ledger, "op-bad", "worker-a", NextAction.DELIVER);
    String mismatch =
        "attempt 4: artifact mismatch: generations/op-bad/gen_1/0.png: expected 2048 bytes with"
            + " sha256 "
            + "a".repeat(64)
            + ", got 2048 bytes with sha256 "
            + "b".repeat(64);
    assertThat(ledger.recordDeliveryFailure(deliver, mismatch)).isTrue();
    ledger.release(deliver);

    CliRunner.Result text = CliRunner.run(env, "ops", "show", "op-bad");
    CliRunner.Result json = CliRunner.run(env, "ops", "show", "op-bad", "--json");

    assertThat(text.exitCode()).as(text.err()).isZero();
    assertThat(text.out())
        .contains("phase       delivering (next action: deliver)\n")
        .contains("delivery    not yet\n")
        .containsPattern(
            "(?m)^ {12}last failed attempt at \\S+: "
                + java.util.regex.Pattern.quote(mismatch)
                + "$")
        .containsPattern("(?m)^in phase    since \\S+$");
    JsonNode failure = JSON.readTree(json.out()).path("last_delivery_failure");
    assertThat(failure.path("reason").asText()).isEqualTo(mismatch);
    assertThat(failure.path("at").isTextual()).isTrue();
  }

  @Test
  void pause_and_resume_dispatch_switch_the_durable_control() {
    WorkerControls controls = new WorkerControls(TestDatabase.dataSource());

    CliRunner.Result paused =
        CliRunner.run(env, "ops", "pause-dispatch", "--reason", "Genace incident", "--by", "alice");
    boolean pausedInTable = controls.dispatchPause().isPresent();
    CliRunner.Result resumed = CliRunner.run(env, "ops", "resume-dispatch", "--by", "alice");

    assertThat(paused.exitCode()).as(paused.err()).isZero();
    assertThat(paused.out())
        .startsWith("dispatch: PAUSED fleet-wide by alice since ")
        .contains("(Genace incident)");
    assertThat(pausedInTable).isTrue();
    assertThat(resumed.exitCode()).as(resumed.err()).isZero();
    assertThat(resumed.out()).isEqualTo("dispatch: running (workers may send new POSTs)\n");
    assertThat(controls.dispatchPause()).isEmpty();
  }

  @Test
  void pause_dispatch_defaults_the_operator_to_user() {
    CliRunner.Result result =
        CliRunner.run(
            Map.of("DATABASE_URL", TestDatabase.databaseUrlValue(), "USER", "bob"),
            "ops",
            "pause-dispatch");

    assertThat(result.out()).startsWith("dispatch: PAUSED fleet-wide by bob since ");
  }

  private void pending(String id) {
    assertThat(ledger.create(new NewOperation(id, "image-v1", "{\"prompt\":\"a fox\"}"))).isTrue();
  }

  private Lease claim(OperationsLedger on, String id, String owner) {
    return claim(on, id, owner, NextAction.DISPATCH);
  }

  private Lease claim(OperationsLedger on, String id, String owner, NextAction action) {
    ClaimResult claim = on.claim(id, owner, action);
    assertThat(claim).isInstanceOf(ClaimResult.Acquired.class);
    return ((ClaimResult.Acquired) claim).lease();
  }

  /** Pending, then a POST whose outcome is unknown: in review, as a worker would leave it. */
  void inReview(String id) {
    pending(id);
    Lease lease = claim(ledger, id, "worker-a");
    assertThat(ledger.markSubmitting(lease)).isEqualTo(WriteResult.APPLIED);
    assertThat(ledger.openReview(lease, "post_outcome_unknown", "connection reset"))
        .isEqualTo(WriteResult.APPLIED);
  }

  /** Accepted by Genace as gen_1: observing, lease released. */
  private void observing(String id) {
    pending(id);
    Lease dispatch = claim(ledger, id, "worker-a");
    assertThat(ledger.markSubmitting(dispatch)).isEqualTo(WriteResult.APPLIED);
    assertThat(ledger.recordAccepted(dispatch, "gen_1")).isEqualTo(WriteResult.APPLIED);
  }

  /** Accepted, rendered, observed and delivered with this manifest. */
  private void delivered(String id, String manifest) {
    pending(id);
    Lease dispatch = claim(ledger, id, "worker-a");
    assertThat(ledger.markSubmitting(dispatch)).isEqualTo(WriteResult.APPLIED);
    assertThat(ledger.recordAccepted(dispatch, "gen_1")).isEqualTo(WriteResult.APPLIED);
    Lease observe = claim(ledger, id, "worker-a", NextAction.OBSERVE);
    assertThat(
            ledger.recordSnapshot(
                observe,
                RemoteStatus.SUCCEEDED,
                "{\"id\":\"gen_1\",\"status\":\"succeeded\",\"outputs\":[]}",
                null))
        .isEqualTo(WriteResult.APPLIED);
    Lease deliver = claim(ledger, id, "worker-a", NextAction.DELIVER);
    assertThat(ledger.recordDelivered(deliver, manifest)).isEqualTo(WriteResult.APPLIED);
  }

  /** A worker whose lease expired tries to write: the ledger denies it and keeps a record. */
  private Lease deniedWrite(String id) {
    pending(id);
    OperationsLedger shortLeases =
        new OperationsLedger(TestDatabase.dataSource(), Duration.ofMillis(1));
    Lease stale = claim(shortLeases, id, "slow-worker");
    try {
      Thread.sleep(20);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    assertThat(shortLeases.markSubmitting(stale)).isEqualTo(WriteResult.DENIED);
    return stale;
  }
}
