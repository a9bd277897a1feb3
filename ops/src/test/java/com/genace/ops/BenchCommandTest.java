package com.genace.ops;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.genace.ops.support.CliRunner;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Smoke runs of each bench with tiny sizes: the command works end to end and reports every headline
 * figure. No figure is compared with a threshold: machines are noisy. Tagged slow (a few minutes on
 * a loaded machine): a plain build runs them, {@code -DexcludedGroups=slow} skips them.
 */
@Tag("slow")
class BenchCommandTest {

  @Test
  void bench_ledger_reports_ours_against_the_bare_claim_and_the_allowance_latencies()
      throws Exception {
    JsonNode json =
        lastJson(
            CliRunner.run(
                Map.of(), "bench", "ledger", "--clients", "2", "--seconds", "2", "--json"));

    assertThat(json.get("bench").asText()).isEqualTo("ledger");
    assertThat(json.get("clients").asInt()).isEqualTo(2);
    assertPositive(
        json,
        "ours_statements_per_s",
        "bare_statements_per_s",
        "ratio",
        "ours_cycles_per_s",
        "bare_claims_per_s",
        "dispatch_unlimited_per_s",
        "dispatch_allowance_per_s",
        "allowance_ratio",
        "allowance_reserve_ms_empty",
        "allowance_reserve_ms_100k");
    // The empty timing runs before the bench's own dispatches; the 100k one after them.
    assertThat(json.get("reservations_before_100k").asLong())
        .isGreaterThanOrEqualTo(json.get("reservations_before_empty").asLong() + 100_000);
  }

  @Test
  void bench_e2e_reports_ours_against_naive_and_bare_workflows_and_the_cost_of_an_operation()
      throws Exception {
    Set<Path> scratchBefore = scratchHomes();
    JsonNode json =
        lastJson(
            CliRunner.run(
                Map.of(), "bench", "e2e", "--operations", "4", "--warm-up", "1", "--json"));

    assertThat(json.get("operations").asInt()).isEqualTo(4);
    assertThat(json.get("warm_up").asInt()).isEqualTo(1);
    assertThat(json.get("delivered").asInt()).isEqualTo(4);
    assertThat(json.get("posts_per_operation").asDouble()).isEqualTo(1.0);
    assertThat(json.get("naive_posts_per_operation").asDouble()).isEqualTo(1.0);
    assertPositive(
        json,
        "ours_per_s",
        "naive_per_s",
        "bare_per_s",
        "ratio",
        "ratio_naive",
        "gets_per_operation",
        "naive_gets_per_operation",
        "statements_per_operation",
        "transitions_per_operation",
        "history_events_per_operation");
    assertThat(json.get("history_events_per_operation").asDouble())
        .isGreaterThan(json.get("bare_history_events_per_operation").asDouble());
    // A start and three activities for either baseline; ours adds its search-attribute upserts.
    assertThat(json.get("naive_actions_per_operation").asDouble()).isEqualTo(4.0);
    assertThat(json.get("bare_actions_per_operation").asDouble()).isEqualTo(4.0);
    assertThat(json.get("actions_per_operation").asDouble()).isGreaterThan(4.0);
    assertThat(json.at("/actions_by_type/ours/UPSERT_WORKFLOW_SEARCH_ATTRIBUTES").asDouble())
        .isPositive();
    assertThat(json.at("/actions_by_type/naive/ACTIVITY_TASK_SCHEDULED Submit").asDouble())
        .isEqualTo(1.0);
    // Its workers' logs and artifacts go with a bench that succeeded.
    assertThat(scratchHomes()).isSubsetOf(scratchBefore);
  }

  @Test
  void bench_scale_reports_what_one_worker_process_holds_while_observing() throws Exception {
    JsonNode json =
        lastJson(
            CliRunner.run(
                Map.of(),
                "bench",
                "scale",
                "--operations",
                "3",
                "--measure-seconds",
                "3",
                "--json"));

    assertThat(json.get("operations").asInt()).isEqualTo(3);
    assertThat(json.get("observing").asInt()).isEqualTo(3);
    assertThat(json.get("expected_gets_per_s").asDouble()).isEqualTo(0.2);
    assertPositive(json, "heap_used_mb", "rss_mb", "threads", "readyz_p99_ms");
    assertThat(json.get("gets_per_s").isNumber()).isTrue();
    assertThat(json.get("polls_overdue").isIntegralNumber()).isTrue();
  }

  @Test
  void bench_soak_reports_the_hot_statements_gauges_sweep_and_retention_at_three_sizes()
      throws Exception {
    JsonNode json =
        lastJson(
            CliRunner.run(
                Map.of(), "bench", "soak", "--operations", "3000", "--repeats", "2", "--json"));

    assertThat(json.get("operations").asInt()).isEqualTo(3000);
    assertThat(json.get("unfinished").asInt()).isEqualTo(2000);
    assertThat(json.get("transitions").asLong()).isGreaterThan(3000);
    for (String field :
        List.of("gauges_ms", "sweep_pass_ms", "retention_pass_ms", "retention_deleted")) {
      assertThat(json.get(field).fieldNames())
          .toIterable()
          .as(field)
          .containsExactly("30", "300", "3000");
    }
    for (String size : List.of("30", "300", "3000")) {
      assertThat(json.at("/hot_ms/" + size).fieldNames())
          .toIterable()
          .containsExactly(
              "claim_due_polls",
              "reschedule_polls",
              "claim",
              "renew",
              "release",
              "observed_snapshot",
              "dispatch_claim");
      JsonNode spread = json.at("/hot_ms_spread/" + size + "/observed_snapshot");
      assertThat(spread.get("min").asDouble())
          .isPositive()
          .isLessThanOrEqualTo(spread.get("max").asDouble());
      assertThat(json.at("/sweep_rows_seen/" + size).asInt()).isEqualTo(2000);
      // The hot statements touch shared blocks and update the operations table.
      assertThat(json.at("/hot_activity/" + size + "/shared_blocks_per_call").asDouble())
          .as(size)
          .isPositive();
      assertThat(json.at("/hot_activity/" + size + "/hot_update_share").asDouble())
          .isBetween(0.0, 1.0);
    }
    // About a tenth of the ended operations ended more than 27 of the 30 days ago.
    assertThat(json.at("/retention_deleted/3000").asLong()).isBetween(200L, 400L);
    assertPositive(json, "hot_growth", "hot_during_retention_ratio");
    assertThat(json.get("repeats").asInt()).isEqualTo(2);
    assertThat(json.at("/hot_growth_spread/min").asDouble())
        .isPositive()
        .isLessThanOrEqualTo(json.at("/hot_growth_spread/max").asDouble());
    assertThat(json.get("hot_ms_during_retention").fieldNames())
        .toIterable()
        .contains("claim_due_polls", "reschedule_polls", "claim", "dispatch_claim");
  }

  @Test
  void bench_fleet_reports_each_runs_rate_lock_waits_and_the_workers_shares() throws Exception {
    JsonNode json =
        lastJson(
            CliRunner.run(
                Map.of(),
                "bench",
                "fleet",
                "--workers",
                "2",
                "--operations",
                "6",
                "--warm-up",
                "0",
                "--allowance",
                "--test-server",
                "--json"));

    assertThat(json.get("runs")).hasSize(1);
    JsonNode run = json.get("runs").get(0);
    assertThat(run.get("workers").asInt()).isEqualTo(2);
    assertThat(run.get("allowance").asBoolean()).isTrue();
    assertThat(run.get("delivered").asInt()).isEqualTo(6);
    assertThat(run.get("posts_per_operation").asDouble()).isEqualTo(1.0);
    assertPositive(run, "ops_per_s", "statements_per_operation");
    // Every dispatch is one worker's, and both workers are named even if one took none.
    assertThat(run.get("dispatched_by_worker").fieldNames())
        .toIterable()
        .containsExactly("bench-fleet-1", "bench-fleet-2");
    long dispatched = 0;
    for (JsonNode count : run.get("dispatched_by_worker")) {
      dispatched += count.asLong();
    }
    assertThat(dispatched).isEqualTo(6);
    assertThat(run.at("/lock_waits/samples").asLong()).isPositive();
    assertThat(run.at("/lock_waits/across_workers").isIntegralNumber()).isTrue();
    // Statements are named as the code names them; with an allowance every dispatch reserves.
    assertThat(run.at("/statements_by_name_per_operation/reserve").asDouble())
        .isGreaterThanOrEqualTo(1.0);
    assertThat(json.at("/lock_waits_across_workers/with_allowance").isIntegralNumber()).isTrue();
  }

  @Test
  void bench_first_minute_reports_a_burst_s_first_seconds_against_later_ones() throws Exception {
    JsonNode json =
        lastJson(
            CliRunner.run(
                Map.of(),
                "bench",
                "first-minute",
                "--clients",
                "2",
                "--seconds",
                "1",
                "--after",
                "2",
                "--warm-up",
                "1",
                "--emptied",
                "--json"));

    assertThat(json.get("bench").asText()).isEqualTo("first-minute");
    assertThat(json.get("ledger").asText()).isEqualTo("emptied");
    assertThat(json.get("clients").asInt()).isEqualTo(2);
    assertThat(json.get("window_s").asInt()).isEqualTo(1);
    assertThat(json.get("after_s").asInt()).isEqualTo(2);
    // The emptied ledger's statistics say so: counted, and empty.
    assertThat(json.get("reltuples_at_start").asDouble()).isZero();
    // Planned while the table held a few rows, the statements still read none by sequential scans.
    assertThat(json.get("first_seq_scan_rows").asLong()).isZero();
    assertThat(json.get("warm_up_s").asInt()).isEqualTo(1);
    assertPositive(
        json,
        "first_operations_per_s",
        "later_operations_per_s",
        "ratio",
        "first_statements_per_s",
        "later_statements_per_s",
        "operations");
    assertThat(json.at("/first_window_activity/shared_blocks_per_call").asDouble()).isPositive();
    assertThat(json.at("/later_window_activity/autovacuums").asLong()).isNotNegative();
  }

  @Test
  void a_bench_must_be_named_and_its_sizes_make_sense() {
    assertThat(CliRunner.run(Map.of(), "bench").exitCode()).isEqualTo(2);
    CliRunner.Result result = CliRunner.run(Map.of(), "bench", "ledger", "--clients", "0");
    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err()).contains("--clients must be at least 1");
    result = CliRunner.run(Map.of(), "bench", "e2e", "--warm-up", "-1");
    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err()).contains("--warm-up must be at least 0");
    result = CliRunner.run(Map.of(), "bench", "soak", "--operations", "99");
    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err()).contains("--operations must be at least 100");
    result = CliRunner.run(Map.of(), "bench", "first-minute", "--seconds", "10", "--after", "5");
    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err()).contains("--after must be at least 10");
    result = CliRunner.run(Map.of(), "bench", "fleet", "--workers", "2,0");
    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err()).contains("--workers must be at least 1");
  }

  @Test
  void a_real_genace_is_refused_before_any_work() {
    CliRunner.Result result =
        CliRunner.run(
            Map.of("GENACE_BASE_URL", "http://127.0.0.1:9/"), "bench", "e2e", "--operations", "2");

    assertThat(result.exitCode()).isEqualTo(1);
    assertThat(result.err()).contains("the benches need the Genace simulator");
  }

  private static Set<Path> scratchHomes() throws IOException {
    try (Stream<Path> entries = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
      return entries
          .filter(path -> path.getFileName().toString().startsWith("genace-bench-"))
          .collect(Collectors.toSet());
    }
  }

  private static JsonNode lastJson(CliRunner.Result result) throws Exception {
    assertThat(result.exitCode()).as(result.err()).isZero();
    List<String> lines = result.out().lines().toList();
    return new ObjectMapper().readTree(lines.get(lines.size() - 1));
  }

  private static void assertPositive(JsonNode json, String... fields) {
    for (String field : fields) {
      assertThat(json.get(field)).as(field).isNotNull();
      assertThat(json.get(field).asDouble()).as(field).isPositive();
    }
  }
}
