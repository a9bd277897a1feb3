package com.genace.worker;

import static com.genace.client.GenerationSearchAttributes.NEEDS_REVIEW;
import static com.genace.worker.support.GenerationHarness.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.genace.activities.delivery.ArtifactContent;
import com.genace.activities.delivery.ArtifactStore;
import com.genace.activities.delivery.ArtifactStoreException;
import com.genace.activities.delivery.LocalDirectoryArtifactStore;
import com.genace.activities.testing.DatabaseExtension;
import com.genace.client.CancelRequest;
import com.genace.client.CarriedState;
import com.genace.client.GenerationWorkflow;
import com.genace.client.OperationResult;
import com.genace.client.OperationView;
import com.genace.client.model.Phase;
import com.genace.client.model.ReviewReason;
import com.genace.client.review.ReviewResolution;
import com.genace.worker.support.ForwardingArtifactStore;
import com.genace.worker.support.GenerationHarness;
import io.temporal.api.common.v1.Payloads;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.api.sdk.v1.WorkflowMetadata;
import io.temporal.client.WorkflowStub;
import io.temporal.common.WorkflowExecutionHistory;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Operations that wait a month, on the time-skipping test server: each continues as new while it
 * waits, so that no run's history passes the budget, and then ends as it would have after a short
 * wait, with one POST.
 */
@ExtendWith(DatabaseExtension.class)
class LongWaitsTest {

  static final Duration MONTH = Duration.ofDays(30);

  /**
   * The budget, plus the events of the turn during which it was passed (at most one batch of the
   * flood's signals and the task's own events).
   */
  static final long LONGEST_RUN = 2_000 + 40;

  /** The history budget after which a run continues as new at its next wait. */
  static final long BUDGET = 2_000;

  /** Refused signals enough to fill a run's budget by themselves. */
  static final int FLOOD = 2_500;

  /** Refused signals sent in one go while no worker polls: one workflow task takes them in. */
  static final int BATCH = 25;

  @TempDir Path artifacts;

  @Test
  void a_month_without_credits_continues_as_new_and_then_delivers_once() throws Exception {
    try (GenerationHarness harness = new GenerationHarness(artifacts)) {
      harness.allowanceExhausted.set(true);
      harness.client.start(request("op-month-credits"));
      harness.temporal.sleep(MONTH);
      harness.allowanceExhausted.set(false);

      OperationResult result =
          harness.client.awaitResult("op-month-credits", Duration.ofMinutes(20));

      assertThat(result.phase()).isEqualTo(Phase.DELIVERED);
      assertThat(harness.postsFor("op-month-credits")).isEqualTo(1);
      assertThat(harness.row("op-month-credits").dispatchAttempts()).isEqualTo(1);
      assertRunsShort(harness.runs("op-month-credits"), LONGEST_RUN);
      harness.replayAndRecordRuns(
          "op-month-credits", "continued-allowance-exhausted-then-delivered");
    }
  }

  @Test
  void a_month_of_429s_continues_as_new_and_then_delivers_once() throws Exception {
    try (GenerationHarness harness = new GenerationHarness(artifacts)) {
      harness.simulator.setFaults(harness.simulator.faults().withRate429(1));
      harness.client.start(request("op-month-429"));
      harness.temporal.sleep(MONTH);
      harness.simulator.setFaults(harness.simulator.faults().withRate429(0));

      OperationResult result = harness.client.awaitResult("op-month-429", Duration.ofMinutes(20));

      assertThat(result.phase()).isEqualTo(Phase.DELIVERED);
      assertThat(harness.row("op-month-429").dispatchAttempts())
          .as("a 429 is an attempt: Genace answered it")
          .isGreaterThan(1000);
      assertThat(harness.simulator.stats().jobsCreated()).isEqualTo(1);
      assertRunsShort(harness.runs("op-month-429"), LONGEST_RUN);
      harness.replayAndRecordRuns("op-month-429", "continued-rate-limited-then-delivered");
    }
  }

  @Test
  void a_review_left_open_a_month_and_flooded_with_refusals_is_resolved_in_its_latest_run()
      throws Exception {
    try (GenerationHarness harness = new GenerationHarness(artifacts)) {
      harness.simulator.setFaults(harness.simulator.faults().withLosePostResponseNext(1));
      harness.client.start(request("op-month-review"));
      harness.awaitPhase("op-month-review", Phase.IN_REVIEW);
      await().until(() -> harness.client.describe("op-month-review").awaitsOperator());
      WorkflowStub workflow = stub(harness, "op-month-review");
      // Half-way to the first reminder, so that the run the flood ends continues mid-interval.
      harness.temporal.sleep(Duration.ofMinutes(30));
      flood(harness, "op-month-review");
      harness.temporal.sleep(MONTH);

      OperationView waiting = harness.client.describe("op-month-review");
      assertThat(waiting.phase()).isEqualTo(Phase.IN_REVIEW);
      assertThat(waiting.awaitsOperator()).isTrue();
      assertThat(waiting.review().reason()).isEqualTo(ReviewReason.POST_OUTCOME_UNKNOWN);
      assertThat(waiting.rejectedResolutions())
          .hasSize(CarriedState.REFUSALS_CARRIED)
          .last()
          .asString()
          .contains("not a resolution " + (FLOOD - 1));
      assertThat(workflow.describe().getTypedSearchAttributes().get(NEEDS_REVIEW)).isTrue();
      WorkflowMetadata metadata =
          workflow.query("__temporal_workflow_metadata", WorkflowMetadata.class);
      assertThat(metadata.getCurrentDetails())
          .startsWith("**in_review**")
          .contains("The latest resolution was refused")
          .contains("resolveReconciliation");

      assertThat(harness.client.start(request("op-month-review")).alreadyExisted())
          .as("starting it again joins the latest run")
          .isTrue();

      String job = waiting.review().evidence().candidates().get(0).id();
      harness.client.resolve(
          "op-month-review",
          new ReviewResolution("found_remote_job", job, "found it on Genace", "alice"));
      OperationResult result = harness.client.awaitResult("op-month-review", Duration.ofMinutes(2));

      assertThat(result.phase()).isEqualTo(Phase.DELIVERED);
      assertThat(result.remoteJobId()).isEqualTo(job);
      assertThat(harness.postsFor("op-month-review")).isEqualTo(1);
      List<WorkflowExecutionHistory> runs = harness.runs("op-month-review");
      assertRunsShort(runs, LONGEST_RUN);
      assertRemindersKeepTheirCadence(runs);
      harness.replayAndRecordRuns("op-month-review", "continued-review-flood-found-remote-job");
    }
  }

  @Test
  void a_cancelled_review_flooded_with_refusals_continues_as_new_and_ends_with_its_resolution()
      throws Exception {
    try (GenerationHarness harness = new GenerationHarness(artifacts)) {
      // No search: the evidence cannot show the job, and not_submitted is accepted.
      harness.simulator.setFaults(
          harness
              .simulator
              .faults()
              .withLatencyMs(1500)
              .withLosePostResponseNext(1)
              .withSearchEnabled(false));
      harness.client.start(request("op-cancelled-flood"));
      harness.awaitPhase("op-cancelled-flood", Phase.SUBMITTING);
      harness.client.cancel("op-cancelled-flood", new CancelRequest("customer left", "shop"));
      // The POST's outcome is unknown: the cancelled operation waits in review for an operator.
      await().until(() -> harness.client.describe("op-cancelled-flood").awaitsOperator());

      flood(harness, "op-cancelled-flood");

      OperationView waiting = harness.client.describe("op-cancelled-flood");
      assertThat(waiting.phase()).isEqualTo(Phase.IN_REVIEW);
      assertThat(waiting.awaitsOperator()).isTrue();
      assertThat(
              harness.client.cancel("op-cancelled-flood", new CancelRequest("once more", "shop")))
          .as("the continued run still handles the first cancel")
          .contains("already cancelling (cancelled by shop: customer left)");
      harness.client.resolve(
          "op-cancelled-flood",
          new ReviewResolution("not_submitted", null, "nothing in the dashboard", "alice"));
      OperationResult result =
          harness.client.awaitResult("op-cancelled-flood", Duration.ofMinutes(2));

      assertThat(result.phase()).isEqualTo(Phase.ABANDONED);
      assertThat(result.detail()).contains("cancelled by shop: customer left");
      assertThat(harness.postsFor("op-cancelled-flood"))
          .as("no POST after the cancel, in any run")
          .isEqualTo(1);
      // No month's sleep here: after this path (a cancel of the dispatch in flight) the Java test
      // server's sleep did not return in 10 minutes. The flood alone fills the budget four times.
      assertRunsShort(harness.runs("op-cancelled-flood"), LONGEST_RUN);
      assertThat(harness.row("op-cancelled-flood").cancelRequestedBy()).contains("shop");
      harness.replayAndRecordRuns("op-cancelled-flood", "continued-cancel-post-unknown-review");
    }
  }

  @Test
  void a_render_observed_while_flooded_with_refusals_continues_as_new_and_delivers_once()
      throws Exception {
    try (GenerationHarness harness = new GenerationHarness(artifacts)) {
      harness.simulator.setFaults(harness.simulator.faults().withJobDurationMs(20_000));
      harness.client.start(request("op-observed-flood"));
      harness.awaitPhase("op-observed-flood", Phase.OBSERVING);
      // Every status poll answered 503: the observation goes on for as long as the flood lasts.
      harness.simulator.setFaults(harness.simulator.faults().withRate5xx(1));

      flood(harness, "op-observed-flood");
      assertThat(harness.client.describe("op-observed-flood").phase()).isEqualTo(Phase.OBSERVING);
      harness.simulator.setFaults(harness.simulator.faults().withRate5xx(0));
      OperationResult result =
          harness.client.awaitResult("op-observed-flood", Duration.ofMinutes(2));

      assertThat(result.phase()).isEqualTo(Phase.DELIVERED);
      assertThat(harness.client.describe("op-observed-flood").credits())
          .as("the credits of the acceptance, carried across continue-as-new")
          .isEqualTo(1L);
      assertThat(harness.postsFor("op-observed-flood")).isEqualTo(1);
      List<WorkflowExecutionHistory> runs = harness.runs("op-observed-flood");
      assertRunsShort(runs, LONGEST_RUN);
      assertContinuedFrom(runs, "AwaitRemoteJob");
      harness.replayAndRecordRuns("op-observed-flood", "continued-observation-flood-delivered");
    }
  }

  @Test
  void a_cancelled_render_kept_for_delivery_continues_as_new_while_observed_and_is_delivered()
      throws Exception {
    try (GenerationHarness harness = new GenerationHarness(artifacts)) {
      harness.simulator.setFaults(harness.simulator.faults().withJobDurationMs(20_000));
      harness.client.start(request("op-kept-flood"));
      harness.awaitPhase("op-kept-flood", Phase.OBSERVING);
      harness.simulator.setFaults(harness.simulator.faults().withRate5xx(1));
      harness.client.cancel("op-kept-flood", new CancelRequest("order cancelled", "shop", true));

      flood(harness, "op-kept-flood");
      assertThat(harness.client.describe("op-kept-flood").phase()).isEqualTo(Phase.OBSERVING);
      assertThat(harness.client.cancel("op-kept-flood", new CancelRequest("once more", "shop")))
          .as("the continued run still handles the first cancel")
          .contains("already cancelling (cancelled by shop: order cancelled)");
      harness.simulator.setFaults(harness.simulator.faults().withRate5xx(0));
      OperationResult result = harness.client.awaitResult("op-kept-flood", Duration.ofMinutes(2));

      assertThat(result.phase()).isEqualTo(Phase.DELIVERED);
      assertThat(result.detail()).contains("cancelled by shop: order cancelled");
      assertThat(harness.postsFor("op-kept-flood")).isEqualTo(1);
      List<WorkflowExecutionHistory> runs = harness.runs("op-kept-flood");
      assertRunsShort(runs, LONGEST_RUN);
      assertContinuedFrom(runs, "AwaitRemoteJob");
      harness.replayAndRecordRuns("op-kept-flood", "continued-cancel-observation-flood-delivered");
    }
  }

  @Test
  void a_delivery_retried_while_flooded_with_refusals_continues_as_new_and_delivers_once()
      throws Exception {
    RefusingStore store = new RefusingStore(new LocalDirectoryArtifactStore(artifacts));
    try (GenerationHarness harness =
        new GenerationHarness(
            artifacts,
            GenerationHarness.simulator(),
            GenerationHarness.API_KEY,
            store,
            Duration.ofSeconds(2))) {
      store.refusing.set(true);
      harness.client.start(request("op-delivery-flood"));
      harness.awaitPhase("op-delivery-flood", Phase.DELIVERING);

      flood(harness, "op-delivery-flood");
      assertThat(harness.client.describe("op-delivery-flood").phase()).isEqualTo(Phase.DELIVERING);
      store.refusing.set(false);
      OperationResult result =
          harness.client.awaitResult("op-delivery-flood", Duration.ofMinutes(3));

      assertThat(result.phase()).isEqualTo(Phase.DELIVERED);
      assertThat(result.artifacts()).isNotEmpty();
      assertThat(harness.postsFor("op-delivery-flood")).isEqualTo(1);
      List<WorkflowExecutionHistory> runs = harness.runs("op-delivery-flood");
      assertRunsShort(runs, LONGEST_RUN);
      assertContinuedFrom(runs, "Deliver");
      harness.replayAndRecordRuns("op-delivery-flood", "continued-delivery-flood-delivered");
    }
  }

  /** Refuses every copy while {@link #refusing} is set, as a store that is down would. */
  private static final class RefusingStore extends ForwardingArtifactStore {
    final AtomicBoolean refusing = new AtomicBoolean();

    RefusingStore(ArtifactStore inner) {
      super(inner);
    }

    @Override
    public void put(String key, ArtifactContent content) {
      if (refusing.get()) {
        throw new ArtifactStoreException("the store is down (the test's fault)");
      }
      super.put(key, content);
    }
  }

  /**
   * Every run but the last continued while the activity of {@code activityType} waited: the one it
   * scheduled last had not completed.
   */
  private static void assertContinuedFrom(
      List<WorkflowExecutionHistory> runs, String activityType) {
    for (WorkflowExecutionHistory run : runs.subList(0, runs.size() - 1)) {
      HistoryEvent lastScheduled = null;
      boolean completed = false;
      for (HistoryEvent event : run.getEvents()) {
        if (event.hasActivityTaskScheduledEventAttributes()) {
          lastScheduled = event;
          completed = false;
        }
        if (event.hasActivityTaskCompletedEventAttributes()
            && lastScheduled != null
            && event.getActivityTaskCompletedEventAttributes().getScheduledEventId()
                == lastScheduled.getEventId()) {
          completed = true;
        }
      }
      assertThat(lastScheduled).isNotNull();
      assertThat(
              lastScheduled.getActivityTaskScheduledEventAttributes().getActivityType().getName())
          .isEqualTo(activityType);
      assertThat(completed).as("the run continued while %s waited", activityType).isFalse();
    }
  }

  private static WorkflowStub stub(GenerationHarness harness, String operationId) {
    return harness
        .temporal
        .getWorkflowClient()
        .newUntypedWorkflowStub(GenerationWorkflow.workflowId(operationId));
  }

  /**
   * {@value #FLOOD} refused signals, enough to fill a run's budget four times over, in batches of
   * {@value #BATCH} sent while no worker polls, each taken in before the next is sent. Near the
   * budget they go one at a time, so that no signal arrives during the task that continues as new:
   * a worker's poll already waiting when polling is suspended takes a batch's first signal at once,
   * and a real server refuses a continue-as-new while others arrive (the worker runs the task again
   * with them), but the test server then loses the run. Each run may pass its budget by one batch
   * at most.
   */
  private static void flood(GenerationHarness harness, String operationId) {
    WorkflowStub workflow = stub(harness, operationId);
    for (int sent = 0; sent < FLOOD; ) {
      boolean nearBudget = harness.historyLength(operationId) + 4L * (BATCH + 2) >= BUDGET;
      int batch = nearBudget ? 1 : BATCH;
      harness.temporal.getWorkerFactory().suspendPolling();
      for (int i = 0; i < batch && sent < FLOOD; i++, sent++) {
        workflow.signal(GenerationWorkflow.RESOLUTION_SIGNAL, "not a resolution " + sent);
      }
      harness.temporal.getWorkerFactory().resumePolling();
      String last = "not a resolution " + (sent - 1);
      // Taken in means refused and the task that refused it completed: a query can answer from
      // the worker's state before the server has that task's completion (with a continue-as-new
      // in it), and signals sent then would race the continue-as-new.
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () -> {
                List<String> refused = harness.client.describe(operationId).rejectedResolutions();
                return !refused.isEmpty()
                    && refused.get(refused.size() - 1).contains(last)
                    && harness.noWorkflowTaskPending(operationId);
              });
    }
  }

  /**
   * The review reminders of every run, in order, fire on the review's own cadence (hourly, doubling
   * to daily), counted from the first reminder's timer: a run that continued as new mid-interval
   * neither delays nor repeats one.
   */
  private static void assertRemindersKeepTheirCadence(List<WorkflowExecutionHistory> runs) {
    List<Instant> fired = new ArrayList<>();
    Instant firstStarted = null;
    for (WorkflowExecutionHistory run : runs) {
      Map<Long, HistoryEvent> reminderTimers = new HashMap<>();
      for (HistoryEvent event : run.getEvents()) {
        if (event.hasTimerStartedEventAttributes()
            && event.getUserMetadata().hasSummary()
            && event
                .getUserMetadata()
                .getSummary()
                .getData()
                .toStringUtf8()
                .contains("reminder in")) {
          reminderTimers.put(event.getEventId(), event);
          if (firstStarted == null) {
            firstStarted = instant(event);
          }
        }
        if (event.hasTimerFiredEventAttributes()
            && reminderTimers.containsKey(
                event.getTimerFiredEventAttributes().getStartedEventId())) {
          fired.add(instant(event));
        }
      }
    }
    assertThat(fired).as("reminders fired").hasSizeGreaterThan(5);
    Instant due = firstStarted;
    for (int i = 0; i < fired.size(); i++) {
      Duration interval = Duration.ofHours(Math.min(24, 1L << Math.min(i, 10)));
      due = due.plus(interval);
      assertThat(Duration.between(due, fired.get(i)).abs())
          .as("reminder %d (due %s, fired %s)", i + 1, due, fired.get(i))
          .isLessThan(Duration.ofMinutes(1));
    }
  }

  private static Instant instant(HistoryEvent event) {
    return Instant.ofEpochSecond(
        event.getEventTime().getSeconds(), event.getEventTime().getNanos());
  }

  private static Payloads startInput(WorkflowExecutionHistory run) {
    return run.getEvents().get(0).getWorkflowExecutionStartedEventAttributes().getInput();
  }

  private static void assertRunsShort(List<WorkflowExecutionHistory> runs, long longest) {
    assertThat(runs).as("runs of a month's wait").hasSizeGreaterThan(1);
    assertThat(startInput(runs.get(0)).getPayloadsCount())
        .as("a client starts it with the request alone, which the Web UI shows as one object")
        .isEqualTo(1);
    assertThat(startInput(runs.get(1)).getPayloadsCount())
        .as("a continued run gets the request and what the previous run carried")
        .isEqualTo(2);
    for (WorkflowExecutionHistory run : runs.subList(0, runs.size() - 1)) {
      assertThat(run.getLastEvent().getEventType())
          .isEqualTo(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW);
    }
    for (WorkflowExecutionHistory run : runs) {
      assertThat(run.getEvents()).hasSizeLessThanOrEqualTo((int) longest);
    }
  }
}
