package com.genace.ops;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.genace.activities.db.Sql;
import com.genace.activities.ledger.ClaimResult;
import com.genace.activities.ledger.CreditEstimate;
import com.genace.activities.ledger.Lease;
import com.genace.activities.ledger.LedgerStats;
import com.genace.activities.ledger.NewOperation;
import com.genace.activities.ledger.OperationsLedger;
import com.genace.activities.ledger.WriteResult;
import com.genace.activities.testing.DatabaseExtension;
import com.genace.activities.testing.QueryPlans;
import com.genace.activities.testing.TestDatabase;
import com.genace.client.model.NextAction;
import com.genace.ops.support.CliRunner;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code ops spend} against the real table: credits committed by a worker configured with {@code
 * GENACE_MODEL_COSTS}, grouped, a window that leaves older ones out, and the POST of unknown
 * outcome reported apart at this shell's costs.
 */
@ExtendWith(DatabaseExtension.class)
class SpendCommandTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  /** The workers' configuration: image-v1=2,video-v1=40, others 3. */
  private final OperationsLedger worker =
      new OperationsLedger(
          Sql.of(TestDatabase.dataSource()),
          OperationsLedger.DEFAULT_LEASE_DURATION,
          LedgerStats.NONE,
          new CreditEstimate(Map.of("image-v1", 2L, "video-v1", 40L), 3));

  private final Map<String, String> env = new HashMap<>();

  @BeforeEach
  void operations() {
    env.put("DATABASE_URL", TestDatabase.databaseUrlValue());
    env.put("GENACE_MODEL_COSTS", "image-v1=2,video-v1=40");
    env.put("GENACE_DEFAULT_COST", "3");
    accepted("img-1", "image-v1", "shop");
    accepted("img-2", "image-v1", "shop");
    accepted("vid-1", "video-v1", "studio");
    accepted("old-1", "video-v1", "studio");
    QueryPlans.execute(
        TestDatabase.dataSource(),
        "UPDATE app_generation_operations SET credits_committed_at = now() - interval '3 days'"
            + " WHERE operation_id = 'old-1'");
    Lease lost = submitting("vid-2", "video-v1", "studio");
    assertThat(worker.openReview(lost, "post_outcome_unknown", "read timed out"))
        .isEqualTo(WriteResult.APPLIED);
  }

  @Test
  void spend_prints_committed_credits_by_account_and_the_unknown_posts_apart() {
    CliRunner.Result result = CliRunner.run(env, "ops", "spend");

    assertThat(result.exitCode()).as(result.err()).isZero();
    assertThat(result.out().lines().toList())
        .containsExactly(
            "Credits committed in the last 1d, by account (each render's estimate when it was"
                + " accepted):",
            "ACCOUNT  CREDITS  OPERATIONS",
            "shop     4        2",
            "studio   40       1",
            "total    44       3",
            "",
            "Possibly spent (POST outcome unknown, in review; at"
                + " GENACE_MODEL_COSTS=image-v1=2,video-v1=40, other models 3):",
            "ACCOUNT  CREDITS  OPERATIONS",
            "studio   40       1",
            "total    40       1");
  }

  @Test
  void spend_groups_by_model_or_day_over_a_longer_window_as_json() throws Exception {
    JsonNode byModel = json("--since", "7d", "--by", "model");
    JsonNode byDay = json("--since", "7d", "--by", "day");

    assertThat(byModel.get("since_seconds").asLong()).isEqualTo(7 * 86_400);
    assertThat(byModel.at("/committed/credits").asLong()).isEqualTo(84);
    assertThat(byModel.at("/committed/groups").toString())
        .isEqualTo(
            "[{\"model\":\"image-v1\",\"credits\":4,\"operations\":2},"
                + "{\"model\":\"video-v1\",\"credits\":80,\"operations\":2}]");
    assertThat(byModel.at("/possibly_spent/credits").asLong()).isEqualTo(40);
    assertThat(byModel.at("/possibly_spent/operations").asLong()).isEqualTo(1);
    assertThat(byDay.at("/committed/groups")).hasSize(2);
    assertThat(byDay.at("/committed/groups/0/day").asText()).matches("\\d{4}-\\d{2}-\\d{2}");
    assertThat(byDay.at("/committed/groups/0/credits").asLong()).isEqualTo(40);
    assertThat(byDay.at("/committed/groups/1/credits").asLong()).isEqualTo(44);
  }

  @Test
  void the_unknown_posts_are_counted_at_this_shells_costs_and_say_so() throws Exception {
    env.remove("GENACE_MODEL_COSTS");
    env.remove("GENACE_DEFAULT_COST");

    JsonNode result = json();

    assertThat(result.at("/committed/credits").asLong())
        .as("as the workers committed")
        .isEqualTo(44);
    assertThat(result.at("/possibly_spent/credits").asLong()).isEqualTo(1);
    assertThat(result.at("/possibly_spent/estimated_at").asText())
        .isEqualTo("GENACE_MODEL_COSTS not set here, other models 1");
  }

  @Test
  void a_bad_grouping_or_window_is_refused_with_the_usage() {
    CliRunner.Result badBy = CliRunner.run(env, "ops", "spend", "--by", "planet");
    CliRunner.Result badSince = CliRunner.run(env, "ops", "spend", "--since", "yesterday");
    env.put("GENACE_MODEL_COSTS", "image-v1");
    CliRunner.Result badCosts = CliRunner.run(env, "ops", "spend");

    assertThat(badBy.exitCode()).isEqualTo(2);
    assertThat(badBy.err()).contains("--by must be account, model or day, not 'planet'");
    assertThat(badSince.exitCode()).isEqualTo(2);
    assertThat(badCosts.exitCode()).isEqualTo(1);
    assertThat(badCosts.err()).contains("GENACE_MODEL_COSTS: expected model=credits");
  }

  @Test
  void show_prints_the_committed_credits_or_that_the_post_may_have_spent() throws Exception {
    CliRunner.Result accepted = CliRunner.run(env, "ops", "show", "vid-1");
    CliRunner.Result unknown = CliRunner.run(env, "ops", "show", "vid-2");
    CliRunner.Result json = CliRunner.run(env, "ops", "show", "vid-1", "--json");

    assertThat(accepted.out())
        .containsPattern("(?m)^credits     40 \\(estimated\\), committed .+ with the acceptance$");
    assertThat(unknown.out())
        .contains("credits     possibly spent: the POST's outcome is unknown (see ops spend)");
    JsonNode credits = JSON.readTree(json.out()).get("credits");
    assertThat(credits.get("estimated").asLong()).isEqualTo(40);
    assertThat(credits.get("committed_at").asText()).isNotBlank();
  }

  private JsonNode json(String... options) throws Exception {
    List<String> args = new java.util.ArrayList<>(List.of("ops", "spend", "--json"));
    args.addAll(List.of(options));
    CliRunner.Result result = CliRunner.run(env, args.toArray(String[]::new));
    assertThat(result.exitCode()).as(result.err()).isZero();
    return JSON.readTree(result.out());
  }

  private void accepted(String id, String model, String account) {
    Lease lease = submitting(id, model, account);
    assertThat(worker.recordAccepted(lease, "gen_" + id)).isEqualTo(WriteResult.APPLIED);
  }

  private Lease submitting(String id, String model, String account) {
    assertThat(worker.create(new NewOperation(id, model, "{\"prompt\":\"a fox\"}", account)))
        .isTrue();
    ClaimResult claim = worker.claim(id, "worker-a", NextAction.DISPATCH);
    assertThat(claim).isInstanceOf(ClaimResult.Acquired.class);
    Lease lease = ((ClaimResult.Acquired) claim).lease();
    assertThat(worker.markSubmitting(lease)).isEqualTo(WriteResult.APPLIED);
    return lease;
  }
}
