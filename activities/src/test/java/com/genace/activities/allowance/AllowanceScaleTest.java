package com.genace.activities.allowance;

import static org.assertj.core.api.Assertions.assertThat;

import com.genace.activities.testing.DatabaseExtension;
import com.genace.activities.testing.QueryPlans;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * With 100k settled reservations in the current window, a reservation and the usage figure plan no
 * sequential scan: credits come from the counters, in-flight counts from the index of unsettled
 * reservations.
 */
@ExtendWith(DatabaseExtension.class)
class AllowanceScaleTest {

  @Test
  void reserving_and_reading_usage_do_not_scan_past_reservations(DataSource db) {
    QueryPlans.execute(
        db,
        "INSERT INTO app_generation_operations (operation_id, phase, next_action, model, request)"
            + " SELECT 'done-' || i, 'delivered', 'none', 'image-v1', '{}'"
            + " FROM generate_series(1, 100000) i",
        "INSERT INTO app_dispatch_reservations (operation_id, account, credits, state)"
            + " SELECT 'done-' || i, 'acct-' || (i % 100), 1, 'spent'"
            + " FROM generate_series(1, 100000) i",
        "INSERT INTO app_generation_operations (operation_id, phase, next_action, model, request)"
            + " VALUES ('op-1', 'pending', 'dispatch', 'image-v1', '{}')",
        "ANALYZE app_generation_operations",
        "ANALYZE app_dispatch_reservations");

    List<List<String>> reserve = new java.util.ArrayList<>();
    for (boolean whole : List.of(false, true)) {
      reserve.add(
          QueryPlans.explain(
              db,
              DispatchAllowance.RESERVE.sql(),
              s -> {
                s.setString(1, "op-1");
                s.setString(2, "acct-1");
                s.setLong(3, 1);
                s.setString(4, "*");
                s.setString(5, "account:acct-1");
                s.setInt(6, DispatchAllowance.homeSlice("op-1"));
                s.setBoolean(7, whole);
                s.setString(8, "3600000 milliseconds");
                s.setLong(9, 1000);
                s.setLong(10, 1000);
                s.setLong(11, 10);
                s.setLong(12, 10);
              }));
    }
    List<String> usage =
        QueryPlans.explain(
            db,
            DispatchAllowance.USAGE.sql(),
            s -> {
              s.setString(1, "3600000 milliseconds");
              s.setBoolean(2, true);
            });

    for (List<String> plan : List.of(reserve.get(0), reserve.get(1), usage)) {
      assertThat(String.join("\n", plan))
          .doesNotContain("Seq Scan on app_dispatch_reservations")
          .doesNotContain("Seq Scan on app_generation_operations");
    }
    DispatchAllowance allowance =
        new DispatchAllowance(
            db,
            new AllowancePolicy(
                java.time.Duration.ofHours(1), 1000, 1000, 10, 10, java.util.Map.of(), 1));
    assertThat(allowance.reserve("op-1", "acct-1", "image-v1").granted()).isTrue();
    assertThat(allowance.usage().inFlight()).isEqualTo(1);
  }
}
