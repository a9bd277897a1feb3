package com.genace.activities.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import com.genace.activities.delivery.LocalDirectoryArtifactStore;
import com.genace.activities.ledger.OperationRow;
import com.genace.activities.ledger.OperationsLedger;
import com.genace.activities.ledger.SweepPosition;
import com.genace.activities.recovery.TemporalHistory;
import com.genace.activities.testing.LedgerFixtures;
import com.genace.activities.testing.QueryPlans;
import com.genace.client.GenerationWorkflow;
import com.genace.client.TaskQueues;
import com.genace.client.model.Phase;
import com.genace.client.model.ReviewReason;
import com.genace.workflows.lifecycle.SweepReport;
import com.genace.workflows.lifecycle.SweepWorkflow;
import com.genace.workflows.lifecycle.SweepWorkflowImpl;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.common.converter.EncodedValues;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import io.temporal.workflow.DynamicWorkflow;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sweeper sees every unfinished row: with more old reviews than one pass reads, sweep runs
 * started as the schedule starts them (each one {@link SweepWorkflow} run) resume where the
 * previous one stopped, until the walk reaches the newest operation. Real ledger, real Temporal
 * (the in-process test server): the reviews' workflows are running (started on a task queue no
 * worker polls), the newest one's is terminated.
 */
class SweepPagingTest {

  private static final String IDLE_QUEUE = "nobody-polls-this";

  @RegisterExtension final LedgerFixtures fixtures = LedgerFixtures.fresh();

  private final DataSource db = fixtures.dataSource();
  private final OperationsLedger ledger = fixtures.ledger();
  private TestWorkflowEnvironment temporal;
  private WorkflowClient client;
  private final List<SweepReport> heard = new ArrayList<>();
  private final AtomicInteger runs = new AtomicInteger();

  @BeforeEach
  void setUp(@TempDir java.nio.file.Path artifacts) {
    this.artifacts = artifacts;
    this.temporal = TestWorkflowEnvironment.newInstance();
    this.client = temporal.getWorkflowClient();
  }

  private java.nio.file.Path artifacts;

  @AfterEach
  void tearDown() {
    temporal.close();
  }

  private void startSweeper(SweepActivitiesImpl.Bounds bounds) {
    startSweeper(bounds, operationId -> {});
  }

  private void startSweeper(
      SweepActivitiesImpl.Bounds bounds, java.util.function.Consumer<String> onOrphan) {
    Worker worker = temporal.newWorker(TaskQueues.OPERATIONS);
    worker.registerWorkflowImplementationTypes(SweepWorkflowImpl.class, WaitsForResolution.class);
    OrphanListener listener =
        new OrphanListener() {
          @Override
          public void orphanFound(String operationId, String closeStatus) {
            onOrphan.accept(operationId);
          }

          @Override
          public void passEnded(SweepReport report) {
            heard.add(report);
          }
        };
    worker.registerActivitiesImplementations(
        new SweepActivitiesImpl(
            ledger,
            client,
            new TemporalHistory(client),
            new LocalDirectoryArtifactStore(artifacts),
            "sweeper-test",
            listener,
            bounds));
    temporal.start();
  }

  /**
   * Stands in for the generation workflow's new run that the sweeper starts for an orphan: it waits
   * (for a resolution, in the real one).
   */
  public static final class WaitsForResolution implements DynamicWorkflow {
    @Override
    public Object execute(EncodedValues args) {
      Workflow.await(() -> false);
      return null;
    }
  }

  /** One scheduled run of the sweeper. */
  private SweepReport scheduledRun() {
    return client
        .newWorkflowStub(
            SweepWorkflow.class,
            WorkflowOptions.newBuilder()
                .setWorkflowId(SweepWorkflow.WORKFLOW_ID + "-" + runs.incrementAndGet())
                .setTaskQueue(TaskQueues.OPERATIONS)
                .build())
        .sweep();
  }

  /** Reviews {@code review-00001} (oldest) to {@code review-<n>} (newest), a millisecond apart. */
  private void insertReviews(int n) {
    QueryPlans.execute(
        db,
        "INSERT INTO app_generation_operations (operation_id, phase, next_action, model, request,"
            + " review_reason, review_opened_at, created_at)"
            + " SELECT 'review-' || lpad(i::text, 5, '0'), 'in_review', 'reconcile', 'image-v1',"
            + " '{}', 'post_outcome_unknown', clock_timestamp(),"
            + " clock_timestamp() - interval '1 day' + i * interval '1 millisecond'"
            + " FROM generate_series(1, "
            + n
            + ") i",
        "ANALYZE app_generation_operations");
  }

  private static String review(int i) {
    return "review-%05d".formatted(i);
  }

  /** Running workflows for these operations (nothing polls their task queue: they stay running). */
  private void startRunning(List<String> operationIds) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> starts = new ArrayList<>();
      for (String id : operationIds) {
        starts.add(
            pool.submit(
                () ->
                    client
                        .newUntypedWorkflowStub(
                            "GenerationWorkflow",
                            WorkflowOptions.newBuilder()
                                .setWorkflowId(GenerationWorkflow.workflowId(id))
                                .setTaskQueue(IDLE_QUEUE)
                                .build())
                        .start()));
      }
      for (Future<?> start : starts) {
        start.get();
      }
    } finally {
      pool.shutdownNow();
    }
  }

  private void terminated(String operationId) {
    client
        .newUntypedWorkflowStub(
            "GenerationWorkflow",
            WorkflowOptions.newBuilder()
                .setWorkflowId(GenerationWorkflow.workflowId(operationId))
                .setTaskQueue(IDLE_QUEUE)
                .build())
        .start();
    client
        .newUntypedWorkflowStub(GenerationWorkflow.workflowId(operationId))
        .terminate("clicked in the Web UI");
  }

  private WorkflowExecutionStatus status(String operationId) {
    return client
        .newUntypedWorkflowStub(GenerationWorkflow.workflowId(operationId))
        .describe()
        .getStatus();
  }

  @Test
  void the_newest_of_12000_reviews_is_swept_by_passes_that_resume_where_the_last_stopped()
      throws Exception {
    int total = 12_000;
    insertReviews(total);
    startRunning(IntStream.range(1, total).mapToObj(SweepPagingTest::review).toList());
    String newest = review(total);
    terminated(newest);
    // 4 pages of 500 a pass: 2,000 operations, six passes to reach the newest.
    startSweeper(new SweepActivitiesImpl.Bounds(500, 4, Duration.ofMinutes(5)));

    List<SweepReport> passes = new ArrayList<>();
    do {
      passes.add(scheduledRun());
    } while (!passes.get(passes.size() - 1).walkCompleted() && passes.size() < 20);

    SweepReport first = passes.get(0);
    assertThat(first.checked()).isEqualTo(2_000);
    assertThat(first.pages()).isEqualTo(4);
    assertThat(first.walkCompleted()).isFalse();
    assertThat(first.orphans()).isEmpty();
    assertThat(passes).hasSizeGreaterThanOrEqualTo(6);
    assertThat(passes.get(passes.size() - 1).walkCompleted()).isTrue();
    // Every row once: no pass read again what an earlier one had read.
    assertThat(passes.stream().mapToInt(SweepReport::checked).sum()).isEqualTo(total);
    assertThat(passes.stream().flatMap(p -> p.orphans().stream()).toList()).containsExactly(newest);
    assertThat(heard).isEqualTo(passes);

    OperationRow row = ledger.get(newest);
    assertThat(row.phase()).isEqualTo(Phase.IN_REVIEW);
    assertThat(row.reviewReason()).contains("post_outcome_unknown"); // its review is kept
    assertThat(ledger.history(newest))
        .filteredOn(t -> t.event().equals(ReviewReason.WORKFLOW_CLOSED.wire()))
        .singleElement()
        .satisfies(t -> assertThat(t.detailsJson()).contains("TERMINATED", "in_review"));
    assertThat(status(newest))
        .as("a new run waits for the review's resolution")
        .isEqualTo(WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING);
    assertThat(ledger.sweepCursor("sweeper-test").position()).isEqualTo(SweepPosition.START);
    assertThat(ledger.sweepCursor("sweeper-test").walksCompleted()).isEqualTo(1);

    // The next pass starts a new walk, from the oldest.
    SweepReport again = scheduledRun();
    assertThat(again.checked()).isEqualTo(2_000);
    assertThat(again.orphans()).isEmpty();
  }

  @Test
  void a_pass_whose_position_another_pass_moved_stops_after_its_page() throws Exception {
    insertReviews(6);
    terminated(review(1));
    startRunning(IntStream.rangeClosed(2, 6).mapToObj(SweepPagingTest::review).toList());
    SweepPosition elsewhere = new SweepPosition("observing", java.time.Instant.EPOCH);
    // While this pass checks its first page, another one (a retried attempt, a sweep started by
    // hand) moves the stored position: this pass must not write over it, nor walk on.
    startSweeper(
        new SweepActivitiesImpl.Bounds(2, 10, Duration.ofMinutes(5)),
        orphan ->
            assertThat(
                    ledger.moveSweepCursor(
                        ledger.sweepCursor("other-pass").generation(),
                        elsewhere,
                        false,
                        "other-pass"))
                .isTrue());

    SweepReport overtaken = scheduledRun();

    assertThat(overtaken.checked()).isEqualTo(2);
    assertThat(overtaken.pages()).isEqualTo(1);
    assertThat(overtaken.orphans()).containsExactly(review(1));
    assertThat(overtaken.walkCompleted()).isFalse();
    assertThat(ledger.sweepCursor("reader").position()).isEqualTo(elsewhere);
    assertThat(ledger.sweepCursor("reader").movedBy()).isEqualTo("other-pass");
  }

  @Test
  void a_pass_out_of_time_stops_after_the_operation_it_checked_and_the_next_goes_on_from_there()
      throws Exception {
    insertReviews(5);
    startRunning(IntStream.rangeClosed(1, 4).mapToObj(SweepPagingTest::review).toList());
    terminated(review(5));
    // Any pass is out of time after its first operation.
    startSweeper(new SweepActivitiesImpl.Bounds(500, 10, Duration.ofNanos(1)));

    List<SweepReport> passes = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      passes.add(scheduledRun());
    }

    assertThat(passes).allSatisfy(p -> assertThat(p.checked()).isEqualTo(1));
    assertThat(passes.subList(0, 4))
        .allSatisfy(
            p -> {
              assertThat(p.orphans()).isEmpty();
              assertThat(p.walkCompleted()).isFalse();
            });
    // The fifth reads the last operation, and the page ends before it is full: the walk is done.
    assertThat(passes.get(4).orphans()).containsExactly(review(5));
    assertThat(passes.get(4).walkCompleted()).isTrue();
    assertThat(ledger.sweepCursor("sweeper-test").position()).isEqualTo(SweepPosition.START);
    // The next pass starts again from the oldest.
    SweepReport next = scheduledRun();
    assertThat(next.checked()).isEqualTo(1);
    assertThat(next.orphans()).isEmpty();
    assertThat(ledger.sweepCursor("sweeper-test").position().createdAt())
        .isEqualTo(ledger.unfinishedAfter(SweepPosition.START, 1).get(0).createdAt());
  }
}
