package com.genace.ops.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.genace.activities.db.SqlStatement;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FleetBenchTest {

  @Test
  void a_share_ratio_is_the_busiest_over_the_idlest_and_unknown_when_one_took_none() {
    assertThat(FleetBench.maxMinRatio(List.of(60L, 40L))).isEqualTo(1.5);
    assertThat(FleetBench.maxMinRatio(List.of(50L))).isEqualTo(1.0);
    assertThat(FleetBench.maxMinRatio(List.of(100L, 0L))).isNull();
    assertThat(FleetBench.shares(Map.of("bench-fleet-1", 30L), 120))
        .containsEntry("bench-fleet-1", 0.25);
  }

  @Test
  void a_straggler_shows_in_the_latencies_and_not_in_the_rate_to_the_95th_percentile() {
    Map<String, Double> starts = new java.util.HashMap<>();
    Map<String, Double> ends = new java.util.HashMap<>();
    for (int i = 0; i < 20; i++) {
      starts.put("op" + i, 0.0);
      ends.put("op" + i, i < 19 ? 1.0 + i / 10.0 : 125.0);
    }

    Map<String, Object> latencies = FleetBench.latencies(starts, ends);

    assertThat(latencies.get("max")).isEqualTo(125.0);
    assertThat(latencies.get("stragglers")).isEqualTo(1L);
    // 19 of 20 ended by 2.8 s.
    assertThat(latencies.get("ops_per_s_to_p95")).isEqualTo(6.79);
  }

  @Test
  void each_worker_names_its_connections_in_the_url_form_it_was_given() {
    assertThat(FleetBench.withApplicationName("postgresql://u@h:5432/db", "bench-fleet-2"))
        .isEqualTo("postgresql://u@h:5432/db?application_name=bench-fleet-2");
    assertThat(
            FleetBench.withApplicationName("postgresql://u@h/db?sslmode=require", "bench-fleet-1"))
        .isEqualTo("postgresql://u@h/db?sslmode=require&application_name=bench-fleet-1");
    assertThat(FleetBench.withApplicationName("jdbc:postgresql://h/db", "bench-fleet-3"))
        .isEqualTo("jdbc:postgresql://h/db?ApplicationName=bench-fleet-3");
  }

  @Test
  void a_statement_is_known_by_its_name_whatever_its_placeholders_and_spacing() {
    StatementNames names =
        StatementNames.of(
            List.of(
                SqlStatement.of(
                    "lock_scopes",
                    """
                    SELECT count(*) FROM (
                      SELECT scope FROM app_allowance_counters WHERE scope IN (?, ?)
                    ) locked
                    """)));

    assertThat(
            names.name(
                "SELECT count(*) FROM (  SELECT scope FROM app_allowance_counters"
                    + " WHERE scope IN ($1, $2)\n) locked"))
        .isEqualTo("lock_scopes");
    assertThat(names.name("SELECT 1")).isEqualTo("SELECT 1");
    assertThat(names.name(null)).isEqualTo("(none)");
    assertThat(StatementNames.load().known()).contains("claim_to_submit", "record_delivered");
  }

  @Test
  void a_negative_number_or_extract_s_field_is_a_constant_as_postgresql_shows_it() {
    // pg_stat_statements shows coalesce(x, -1) as coalesce(x, $1) (the minus is folded into the
    // constant) and extract(epoch FROM ...) as extract($2 FROM ...): as record_observed_snapshot
    // and the fleet gauges' statement read there.
    StatementNames names =
        StatementNames.of(
            List.of(
                SqlStatement.of(
                    "rank_age",
                    """
                    SELECT coalesce(rank, -1) >= ?, o.revision - 1,
                           extract(epoch FROM clock_timestamp() - since)
                    FROM t o
                    """)));

    assertThat(
            names.name(
                "SELECT coalesce(rank, $1) >= $2, o.revision - $3,\n"
                    + "       extract($4 FROM clock_timestamp() - since)\nFROM t o"))
        .isEqualTo("rank_age");
  }
}
