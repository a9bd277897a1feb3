package com.genace.activities.observation;

import static io.temporal.failure.ApplicationErrorCategory.BENIGN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.genace.activities.genace.GenaceClient;
import com.genace.activities.genace.GenaceRateLimitedException;
import com.genace.activities.genace.JobSnapshot;
import com.genace.activities.genace.MalformedResponseException;
import com.genace.activities.genace.RemoteJobNotFoundException;
import com.genace.activities.ledger.ClaimResult;
import com.genace.activities.ledger.Lease;
import com.genace.activities.ledger.NewOperation;
import com.genace.activities.ledger.OperationRow;
import com.genace.activities.ledger.OperationsLedger;
import com.genace.activities.ledger.TransitionRow;
import com.genace.activities.ledger.WriteResult;
import com.genace.activities.observation.support.ScriptedGenace;
import com.genace.activities.stats.ActivityStats;
import com.genace.activities.testing.DatabaseExtension;
import com.genace.client.model.NextAction;
import com.genace.client.model.Phase;
import com.genace.client.model.ReviewReason;
import com.genace.workflows.model.RemoteStatus;
import com.genace.workflows.observation.ObservationResult;
import io.temporal.failure.ApplicationFailure;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** One status poll: what it writes, what it leaves behind, and how it paces the next one. */
@ExtendWith(DatabaseExtension.class)
class ObservationPollTest {

  private static final String OP = "op-poll";
  private static final String JOB = "gen_poll";
  private static final PollingPolicy POLICY =
      new PollingPolicy(Duration.ofSeconds(1), Duration.ofSeconds(15), 1.5, 0.2);

  private DataSource db;
  private OperationsLedger ledger;

  @BeforeEach
  void an_operation_observing_its_accepted_job(DataSource db) {
    this.db = db;
    this.ledger = new OperationsLedger(db, Duration.ofSeconds(20));
    ledger.create(new NewOperation(OP, "image-v1", "{\"prompt\":\"fox\"}"));
    Lease dispatch =
        ((ClaimResult.Acquired) ledger.claim(OP, "dispatcher", NextAction.DISPATCH)).lease();
    ledger.markSubmitting(dispatch);
    ledger.recordAccepted(dispatch, JOB);
  }

  private GenaceStatusPoll statusPoll(OperationsLedger ledger, GenaceClient genace) {
    return new GenaceStatusPoll(
        ledger, genace, "worker-a", POLICY, Clock.systemUTC(), ActivityStats.NONE);
  }

  private GenaceStatusPoll answering(RemoteStatus status) {
    return statusPoll(ledger, new ScriptedGenace(id -> snapshot(id, status)));
  }

  private static JobSnapshot snapshot(String id, RemoteStatus status) {
    return new JobSnapshot(id, status, List.of(), status == RemoteStatus.FAILED ? "boom" : null);
  }

  private static ApplicationFailure failureOf(Runnable poll) {
    return catchThrowableOfType(poll::run, ApplicationFailure.class);
  }

  private List<TransitionRow> history() {
    return ledger.history(OP);
  }

  @Test
  void a_running_job_fails_the_attempt_paced_by_backoff_and_leaves_no_lease() {
    ApplicationFailure first = failureOf(() -> answering(RemoteStatus.RUNNING).poll(OP, 1));
    ApplicationFailure tenth = failureOf(() -> answering(RemoteStatus.RUNNING).poll(OP, 10));

    assertThat(first.getType()).isEqualTo(GenaceStatusPoll.NOT_TERMINAL_YET);
    assertThat(first.isNonRetryable()).isFalse();
    assertThat(first.getCategory()).as("expected, not an error").isEqualTo(BENIGN);
    assertThat(first.getStackTrace()).as("no stack trace stored on every poll").isEmpty();
    assertThat(first.getNextRetryDelay())
        .isBetween(Duration.ofMillis(800), Duration.ofMillis(1200));
    assertThat(tenth.getNextRetryDelay()).isBetween(Duration.ofSeconds(12), Duration.ofSeconds(18));
    OperationRow row = ledger.get(OP);
    assertThat(row.remoteStatus()).contains(RemoteStatus.RUNNING);
    assertThat(row.leaseOwner()).isEmpty();
    assertThat(row.leaseUntil()).isEmpty();
  }

  @Test
  void a_status_that_is_not_newer_writes_nothing_and_needs_no_lease() {
    failureOf(() -> answering(RemoteStatus.RUNNING).poll(OP, 1));
    int rows = history().size();
    long revision = ledger.get(OP).revision();

    failureOf(() -> answering(RemoteStatus.RUNNING).poll(OP, 2));
    failureOf(() -> answering(RemoteStatus.QUEUED).poll(OP, 3)); // a late, older answer

    assertThat(history()).hasSize(rows);
    assertThat(ledger.get(OP).revision()).isEqualTo(revision);
    assertThat(ledger.get(OP).remoteStatus()).contains(RemoteStatus.RUNNING);
  }

  @Test
  void retry_after_paces_the_next_poll_when_longer_and_nothing_is_written() {
    int rows = history().size();
    GenaceStatusPoll limited =
        statusPoll(
            ledger,
            new ScriptedGenace(
                id -> {
                  throw new GenaceRateLimitedException("429", Duration.ofSeconds(40));
                }));

    ApplicationFailure failure = failureOf(() -> limited.poll(OP, 1));

    assertThat(failure.getType()).isEqualTo(GenaceStatusPoll.POLL_FAILED);
    assertThat(failure.getNextRetryDelay()).isEqualTo(Duration.ofSeconds(40));
    assertThat(history()).hasSize(rows);
  }

  @Test
  void a_malformed_answer_is_retried_and_changes_nothing() {
    OperationRow before = ledger.get(OP);
    GenaceStatusPoll malformed =
        statusPoll(
            ledger,
            new ScriptedGenace(
                id -> {
                  throw new MalformedResponseException("status 'sleeping' is not a status");
                }));

    ApplicationFailure failure = failureOf(() -> malformed.poll(OP, 1));

    assertThat(failure.getType()).isEqualTo(GenaceStatusPoll.POLL_FAILED);
    assertThat(failure.isNonRetryable()).isFalse();
    assertThat(failure.getOriginalMessage()).contains("sleeping");
    assertThat(failure.getCategory()).isNotEqualTo(BENIGN);
    assertThat(ledger.get(OP)).isEqualTo(before);
  }

  @Test
  void a_terminal_snapshot_moves_the_operation_on_and_ends_observation() {
    ObservationResult succeeded = answering(RemoteStatus.SUCCEEDED).poll(OP, 1);

    assertThat(succeeded).isEqualTo(ObservationResult.terminal(RemoteStatus.SUCCEEDED, JOB, null));
    OperationRow row = ledger.get(OP);
    assertThat(row.phase()).isEqualTo(Phase.DELIVERING);
    assertThat(row.leaseOwner()).isEmpty();
    // A retry of the same attempt (its completion was lost) reads the outcome from the ledger.
    assertThat(answering(RemoteStatus.RUNNING).poll(OP, 2)).isEqualTo(succeeded);
  }

  @Test
  void a_failed_render_ends_observation_failed_with_its_reason() {
    ObservationResult failed = answering(RemoteStatus.FAILED).poll(OP, 1);

    assertThat(failed.status()).isEqualTo(RemoteStatus.FAILED);
    assertThat(failed.detail()).isEqualTo("boom");
    assertThat(ledger.get(OP).phase()).isEqualTo(Phase.FAILED);
  }

  @Test
  void a_job_unknown_to_genace_opens_a_review_under_the_observe_lease() {
    GenaceStatusPoll unknown =
        statusPoll(
            ledger,
            new ScriptedGenace(
                id -> {
                  throw new RemoteJobNotFoundException("no job " + id);
                }));

    ObservationResult result = unknown.poll(OP, 1);

    assertThat(result.review()).isEqualTo(ReviewReason.REMOTE_JOB_NOT_FOUND);
    OperationRow row = ledger.get(OP);
    assertThat(row.phase()).isEqualTo(Phase.IN_REVIEW);
    assertThat(row.reviewReason()).contains("remote_job_not_found");
    assertThat(row.leaseOwner()).isEmpty();
  }

  @Test
  void a_newer_snapshot_costs_one_write_under_a_new_revision_and_its_transition_row() {
    long revision = ledger.get(OP).revision();
    int rows = history().size();

    failureOf(() -> answering(RemoteStatus.RUNNING).poll(OP, 1));

    OperationRow row = ledger.get(OP);
    assertThat(row.revision()).isEqualTo(revision + 1);
    assertThat(row.leaseOwner()).isEmpty();
    assertThat(history()).hasSize(rows + 1);
    TransitionRow snapshot = history().get(rows);
    assertThat(snapshot.event()).isEqualTo("snapshot");
    assertThat(snapshot.accepted()).isTrue();
    assertThat(snapshot.revision()).isEqualTo(revision + 1);
    assertThat(snapshot.owner()).contains("worker-a");
  }

  @Test
  void a_lease_taken_by_another_worker_during_the_get_refuses_the_write_and_leaves_no_row() {
    int rows = history().size();
    GenaceStatusPoll overtaken =
        statusPoll(
            ledger,
            new ScriptedGenace(
                id -> {
                  ledger.claim(OP, "worker-b", NextAction.OBSERVE); // live for 20 s
                  return snapshot(id, RemoteStatus.SUCCEEDED);
                }));

    ApplicationFailure failure = failureOf(() -> overtaken.poll(OP, 1));

    assertThat(failure.getType()).isEqualTo(GenaceStatusPoll.POLL_FAILED);
    assertThat(failure.getNextRetryDelay()).isGreaterThan(Duration.ofSeconds(15));
    OperationRow row = ledger.get(OP);
    assertThat(row.phase()).isEqualTo(Phase.OBSERVING);
    assertThat(row.remoteStatus()).isEmpty();
    assertThat(row.leaseOwner()).contains("worker-b");
    assertThat(history()).hasSize(rows);
  }

  @Test
  void a_worker_whose_lease_expired_is_denied_after_a_poll_recorded_over_it() {
    // worker-b's lease expires at once: a poll does not wait for it, and b's late write is fenced.
    Lease stale =
        ((ClaimResult.Acquired)
                new OperationsLedger(db, Duration.ofNanos(1000))
                    .claim(OP, "worker-b", NextAction.OBSERVE))
            .lease();

    failureOf(() -> answering(RemoteStatus.RUNNING).poll(OP, 1));
    OperationRow recorded = ledger.get(OP);

    assertThat(recorded.remoteStatus()).contains(RemoteStatus.RUNNING);
    assertThat(recorded.revision()).isGreaterThan(stale.revision());
    assertThat(ledger.recordSnapshot(stale, RemoteStatus.FAILED, "{}", "late"))
        .isEqualTo(WriteResult.DENIED);
    assertThat(ledger.get(OP)).isEqualTo(recorded);
    assertThat(history())
        .filteredOn(t -> !t.accepted())
        .singleElement()
        .satisfies(t -> assertThat(t.revision()).isEqualTo(stale.revision()));
  }

  @Test
  void an_attempt_whose_job_id_changed_during_the_get_writes_nothing_and_holds_no_lease() {
    // While the GET is out, the operation's remote job id changes (an operator's resolution):
    // the write finds another job than the one the attempt read, and the attempt fails.
    GenaceStatusPoll confused =
        statusPoll(
            ledger,
            new ScriptedGenace(
                id -> {
                  setRemoteJobId("gen_other");
                  return snapshot(id, RemoteStatus.RUNNING);
                }));

    ApplicationFailure failure = failureOf(() -> confused.poll(OP, 1));

    assertThat(failure.getOriginalMessage()).contains("remote job id changed");
    OperationRow row = ledger.get(OP);
    assertThat(row.leaseOwner()).isEmpty();
    assertThat(row.remoteStatus()).isEmpty();
    // A refused write leaves no history row.
    assertThat(history()).extracting(TransitionRow::event).endsWith("accepted");
    // Its retry, or any other worker, claims at once.
    assertThat(ledger.claim(OP, "worker-b", NextAction.OBSERVE))
        .isInstanceOf(ClaimResult.Acquired.class);
  }

  @Test
  void an_attempt_that_meets_a_live_lease_waits_for_its_expiry() {
    ledger.claim(OP, "worker-b", NextAction.OBSERVE); // another attempt holds it for 20 s

    ApplicationFailure failure = failureOf(() -> answering(RemoteStatus.RUNNING).poll(OP, 1));

    assertThat(failure.getType()).isEqualTo(GenaceStatusPoll.POLL_FAILED);
    assertThat(failure.getNextRetryDelay()).isGreaterThan(Duration.ofSeconds(15));
    assertThat(ledger.get(OP).leaseOwner()).contains("worker-b");
    assertThat(ledger.get(OP).remoteStatus()).isEmpty();
  }

  private void setRemoteJobId(String remoteJobId) {
    try (Connection connection = db.getConnection();
        PreparedStatement update =
            connection.prepareStatement(
                "UPDATE app_generation_operations SET remote_job_id = ? WHERE operation_id = ?")) {
      update.setString(1, remoteJobId);
      update.setString(2, OP);
      update.executeUpdate();
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }
}
