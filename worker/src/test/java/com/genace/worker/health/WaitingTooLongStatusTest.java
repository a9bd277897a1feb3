package com.genace.worker.health;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.genace.activities.db.Sql;
import com.genace.activities.ledger.LedgerStatistics;
import com.genace.activities.ledger.NewOperation;
import com.genace.activities.ledger.OperationsLedger;
import com.genace.activities.testing.DatabaseExtension;
import com.genace.activities.testing.QueryPlans;
import com.genace.client.model.NextAction;
import com.genace.worker.config.WorkerConfig;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The fleet's oldest observation and delivery, read from the ledger with rows of known ages (made
 * by the database clock), on {@code /status} and {@code /metrics}.
 */
@ExtendWith(DatabaseExtension.class)
class WaitingTooLongStatusTest {

  private static Map<String, String> env() {
    Map<String, String> env = new HashMap<>();
    env.put("DATABASE_URL", "postgresql://app:db-pass@db.internal:5432/genace");
    env.put("GENACE_BASE_URL", "https://api.genace.example");
    env.put("GENACE_API_KEY", "sk-secret");
    return env;
  }

  @Test
  void the_oldest_observation_and_delivery_ages_show_on_status_and_in_metrics(DataSource db) {
    OperationsLedger ledger = new OperationsLedger(db);
    for (String id : new String[] {"op-render", "op-copy"}) {
      ledger.create(new NewOperation(id, "image-v1", "{}"));
      var lease =
          ((com.genace.activities.ledger.ClaimResult.Acquired)
                  ledger.claim(id, "w", NextAction.DISPATCH))
              .lease();
      ledger.markSubmitting(lease);
      ledger.recordAccepted(lease, "gen_" + id);
    }
    var observe =
        ((com.genace.activities.ledger.ClaimResult.Acquired)
                ledger.claim("op-copy", "w", NextAction.OBSERVE))
            .lease();
    ledger.recordSnapshot(
        observe, com.genace.workflows.model.RemoteStatus.SUCCEEDED, "{\"outputs\":[]}", null);
    QueryPlans.execute(
        db,
        "UPDATE app_generation_operations SET phase_since = clock_timestamp() - interval '7 hours'"
            + " WHERE operation_id = 'op-render'",
        "UPDATE app_generation_operations SET phase_since = clock_timestamp()"
            + " - interval '90 minutes' WHERE operation_id = 'op-copy'");
    WorkerConfig config = WorkerConfig.fromEnvironment(env());
    WorkerState state = new WorkerState(Clock.systemUTC(), 1);
    WorkerMetrics metrics = new WorkerMetrics(state, config);
    try {
      metrics.update(new LedgerStatistics(Sql.of(db), Duration.ZERO, "worker-a").read());

      JsonNode status = StatusDocument.of(config, state, metrics);
      String scrape = metrics.scrape();

      assertThat(status.path("oldest_observation_age_seconds").asLong())
          .isBetween(25_200L, 25_260L);
      assertThat(status.path("oldest_delivery_age_seconds").asLong()).isBetween(5_400L, 5_460L);
      assertThat(scrape)
          .contains("# HELP genace_oldest_observation_age_seconds how long the operation")
          .contains("# HELP genace_oldest_delivery_age_seconds how long the operation")
          .containsPattern("(?m)^genace_oldest_observation_age_seconds 252\\d\\d\\.")
          .containsPattern("(?m)^genace_oldest_delivery_age_seconds 54\\d\\d\\.");
    } finally {
      metrics.close();
    }
  }
}
