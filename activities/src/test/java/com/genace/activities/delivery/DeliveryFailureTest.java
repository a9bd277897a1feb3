package com.genace.activities.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import com.genace.activities.delivery.support.Artifacts;
import com.genace.activities.delivery.support.ReadyToDeliver;
import com.genace.activities.genace.CreateOutcome;
import com.genace.activities.genace.CreateRequest;
import com.genace.activities.genace.GenaceClient;
import com.genace.activities.genace.JobOutput;
import com.genace.activities.genace.JobSnapshot;
import com.genace.activities.genace.RemoteJob;
import com.genace.activities.ledger.OperationRow;
import com.genace.activities.ledger.OperationsLedger;
import com.genace.activities.ledger.WaitLimits;
import com.genace.activities.testing.CapturedLogs;
import com.genace.activities.testing.LedgerFixtures;
import com.genace.activities.testing.QueryPlans;
import com.genace.client.model.Phase;
import com.genace.workflows.delivery.DeliveryActivities;
import com.genace.workflows.model.RemoteStatus;
import io.temporal.activity.ActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.failure.ActivityFailure;
import io.temporal.testing.TestActivityEnvironment;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A delivery whose bytes never match the announced SHA-256: every attempt fails and is retried; the
 * row says why (for {@code ops show}), and once the delivery has gone on longer than its limit one
 * ERROR line says so, however many attempts fail after it.
 */
class DeliveryFailureTest {

  private static final byte[] ARRIVES = Artifacts.random(2048, 3);
  private static final String ANNOUNCED = "0".repeat(64);

  @TempDir Path directory;

  @RegisterExtension final LedgerFixtures fixtures = LedgerFixtures.fresh(Duration.ofSeconds(30));

  private final DataSource db = fixtures.dataSource();
  private final OperationsLedger ledger = fixtures.ledger();
  private final List<TestActivityEnvironment> environments = new ArrayList<>();

  @AfterEach
  void close() {
    environments.forEach(TestActivityEnvironment::close);
  }

  @Test
  void a_checksum_that_keeps_failing_is_recorded_on_the_row_and_a_long_one_logged_once() {
    delivering("op-bad");
    QueryPlans.execute(
        db,
        "UPDATE app_generation_operations SET phase_since = clock_timestamp()"
            + " - interval '2 hours' WHERE operation_id = 'op-bad'");

    try (CapturedLogs logs = CapturedLogs.of("com.genace.activities.ledger.WaitingTooLong")) {
      for (String worker : List.of("worker-a", "worker-b", "worker-a")) {
        assertThatThrownBy(() -> worker(worker).deliver("op-bad"))
            .isInstanceOf(ActivityFailure.class);
      }

      assertThat(logs.at(Level.ERROR))
          .singleElement()
          .asString()
          .startsWith("operation op-bad has been delivering for 2h")
          .contains("longer than the limit of 1h")
          .contains("last delivery failure: attempt 1: artifact mismatch: ")
          .contains("sha256 " + ANNOUNCED);
    }
    OperationRow row = ledger.get("op-bad");
    assertThat(row.phase()).isEqualTo(Phase.DELIVERING);
    assertThat(row.leaseOwner()).as("each failed attempt handed its lease back").isEmpty();
    assertThat(row.deliveryFailedAt()).isPresent();
    assertThat(row.deliveryFailure().orElseThrow())
        .startsWith("attempt 1: artifact mismatch: generations/op-bad/gen_bad/0.png: expected")
        .contains("expected 2048 bytes with sha256 " + ANNOUNCED)
        .endsWith("got 2048 bytes with sha256 " + Artifacts.sha256(ARRIVES));
  }

  @Test
  void a_young_delivery_that_fails_records_why_and_logs_no_error() {
    delivering("op-young");

    try (CapturedLogs logs = CapturedLogs.of("com.genace.activities.ledger.WaitingTooLong")) {
      assertThatThrownBy(() -> worker("worker-a").deliver("op-young"))
          .isInstanceOf(ActivityFailure.class);

      assertThat(logs.at(Level.ERROR)).isEmpty();
    }
    assertThat(ledger.get("op-young").deliveryFailure().orElseThrow())
        .contains("artifact mismatch");
    assertThat(ledger.get("op-young").tooLongReportedAt()).isEmpty();
  }

  private DeliveryActivities worker(String owner) {
    TestActivityEnvironment environment = TestActivityEnvironment.newInstance();
    environments.add(environment);
    environment.registerActivitiesImplementations(
        new DeliveryActivitiesImpl(
            ledger,
            new WrongBytes(),
            new LocalDirectoryArtifactStore(directory),
            owner,
            Clock.systemUTC(),
            new WaitLimits(Duration.ofHours(6), Duration.ofHours(1))));
    return environment.newActivityStub(
        DeliveryActivities.class,
        ActivityOptions.newBuilder()
            .setStartToCloseTimeout(Duration.ofMinutes(1))
            .setRetryOptions(RetryOptions.newBuilder().setMaximumAttempts(1).build())
            .build());
  }

  /** Accepted as job gen_bad, rendered with one output whose announced SHA-256 is wrong. */
  private void delivering(String operationId) {
    JobSnapshot snapshot =
        new JobSnapshot(
            "gen_bad",
            RemoteStatus.SUCCEEDED,
            List.of(
                new JobOutput(
                    "http://genace.invalid/out/0", "image/png", ARRIVES.length, ANNOUNCED)),
            null);
    ReadyToDeliver.acceptedAndSucceeded(ledger, operationId, "image-v1", snapshot);
  }

  /** Genace serving bytes other than those its snapshot announced. */
  private static final class WrongBytes implements GenaceClient {
    @Override
    public InputStream openOutput(JobOutput output) {
      return new ByteArrayInputStream(ARRIVES);
    }

    @Override
    public CreateOutcome create(CreateRequest request) {
      throw new AssertionError("delivery calls only openOutput");
    }

    @Override
    public JobSnapshot get(String remoteJobId) {
      throw new AssertionError("delivery calls only openOutput");
    }

    @Override
    public Optional<RemoteJob> lookUp(String remoteJobId) {
      throw new AssertionError("delivery calls only openOutput");
    }

    @Override
    public Optional<List<RemoteJob>> search(String operationId) {
      throw new AssertionError("delivery calls only openOutput");
    }

    @Override
    public List<String> listModels() {
      throw new AssertionError("delivery calls only openOutput");
    }
  }
}
