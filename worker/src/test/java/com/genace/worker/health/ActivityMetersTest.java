package com.genace.worker.health;

import static org.assertj.core.api.Assertions.assertThat;

import com.genace.activities.allowance.SpendingAllowance;
import com.genace.activities.controls.DispatchCircuit;
import com.genace.activities.dispatch.DispatchActivitiesImpl;
import com.genace.activities.dispatch.DispatchGate;
import com.genace.activities.dispatch.DispatchListener;
import com.genace.activities.genace.GenaceClientConfig;
import com.genace.activities.genace.HttpGenaceClient;
import com.genace.activities.ledger.NewOperation;
import com.genace.activities.ledger.OperationsLedger;
import com.genace.activities.stats.ActivityStats.PollFailure;
import com.genace.activities.stats.ActivityStats.Resolver;
import com.genace.activities.testing.DatabaseExtension;
import com.genace.testkit.simulator.Faults;
import com.genace.testkit.simulator.GenaceSimulator;
import com.genace.workflows.dispatch.DispatchOutcome;
import com.genace.workflows.model.RemoteStatus;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The activities count in the registry they are given, under the names the dashboards use. */
@ExtendWith(DatabaseExtension.class)
class ActivityMetersTest {

  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private GenaceSimulator genace;

  @BeforeEach
  void start() {
    genace = GenaceSimulator.builder().seed(3).start();
  }

  @AfterEach
  void stop() {
    genace.close();
    registry.close();
  }

  @Test
  void a_dispatch_counts_its_post_outcome_in_the_injected_registry(DataSource db) {
    OperationsLedger ledger = new OperationsLedger(db);
    ledger.create(new NewOperation("op-1", "image-v1", "{\"prompt\":\"fox\"}"));
    ledger.create(new NewOperation("op-2", "image-v1", "{\"prompt\":\"owl\"}"));
    DispatchActivitiesImpl dispatch =
        new DispatchActivitiesImpl(
            ledger,
            new HttpGenaceClient(
                GenaceClientConfig.of(genace.baseUrl(), "sk-test")
                    .withTimeouts(Duration.ofSeconds(2), Duration.ofSeconds(2))),
            "worker-a",
            DispatchGate.OPEN,
            DispatchListener.NONE,
            SpendingAllowance.UNLIMITED,
            DispatchCircuit.NONE,
            new ActivityMeters(registry));

    assertThat(dispatch.dispatch("op-1").outcome()).isEqualTo(DispatchOutcome.ACCEPTED);
    genace.setFaults(Faults.DEFAULT.withLosePostResponseNext(1));
    assertThat(dispatch.dispatch("op-2").outcome()).isEqualTo(DispatchOutcome.UNKNOWN);

    assertThat(count("genace_post_outcomes", "outcome", "accepted")).isEqualTo(1);
    assertThat(count("genace_post_outcomes", "outcome", "unknown")).isEqualTo(1);
  }

  @Test
  void polls_and_reviews_keep_their_tag_values() {
    ActivityMeters meters = new ActivityMeters(registry);

    meters.polled(RemoteStatus.SUCCEEDED);
    meters.pollFailed(PollFailure.NOT_FOUND);
    meters.pollFailed(PollFailure.RATE_LIMITED);
    meters.reviewOpened();
    meters.duplicateJobsFound();
    meters.reviewResolved(Resolver.RECONCILER);
    meters.reviewResolved(Resolver.OPERATOR);

    assertThat(count("genace_polls", "result", "succeeded")).isEqualTo(1);
    assertThat(count("genace_polls", "result", "not_found")).isEqualTo(1);
    assertThat(count("genace_polls", "result", "rate_limited")).isEqualTo(1);
    assertThat(registry.get("genace_reviews_opened").counter().count()).isEqualTo(1);
    assertThat(registry.get("genace_review_duplicates").counter().count()).isEqualTo(1);
    assertThat(count("genace_review_resolutions", "by", "reconciler")).isEqualTo(1);
    assertThat(count("genace_review_resolutions", "by", "operator")).isEqualTo(1);
  }

  private double count(String name, String tag, String value) {
    return registry.get(name).tag(tag, value).counter().count();
  }
}
