package com.genace.worker.support;

import com.genace.activities.allowance.SpendingAllowance;
import com.genace.activities.controls.DispatchCircuit;
import com.genace.activities.controls.WorkerControls;
import com.genace.activities.delivery.ArtifactStore;
import com.genace.activities.delivery.LocalDirectoryArtifactStore;
import com.genace.activities.dispatch.SendWindow;
import com.genace.activities.genace.GenaceClient;
import com.genace.activities.ledger.OperationRow;
import com.genace.activities.ledger.OperationsLedger;
import com.genace.activities.review.ReviewSettings;
import com.genace.activities.testing.TestDatabase;
import com.genace.client.GenerationClient;
import com.genace.client.GenerationRequest;
import com.genace.client.GenerationSearchAttributes;
import com.genace.client.GenerationWorkflow;
import com.genace.client.TaskQueues;
import com.genace.client.model.Phase;
import com.genace.testkit.simulator.Faults;
import com.genace.testkit.simulator.GenaceSimulator;
import com.genace.workflows.GenerationWorkflowImpl;
import com.google.protobuf.ByteString;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.enums.v1.IndexedValueType;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.api.workflowservice.v1.GetWorkflowExecutionHistoryRequest;
import io.temporal.api.workflowservice.v1.GetWorkflowExecutionHistoryResponse;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.common.WorkflowExecutionHistory;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.testing.WorkflowReplayer;
import io.temporal.worker.WorkerFactory;
import io.temporal.worker.WorkerFactoryOptions;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.zip.GZIPOutputStream;

/**
 * Everything real for end-to-end workflow tests: the Temporal test server (time skipping), the
 * shared PostgreSQL, the Genace simulator over HTTP, a local artifact directory, and the production
 * activity implementations, assembled by {@link TestWorkers}.
 */
public final class GenerationHarness implements AutoCloseable {

  public static final String API_KEY = "sim-test-key";
  public static final Duration LEASE = Duration.ofSeconds(3);

  public final GenaceSimulator simulator;
  public final TestWorkflowEnvironment temporal;
  public final OperationsLedger ledger;
  public final GenerationClient client;
  public final Path artifacts;

  /** Why dispatch is closed on the test's workers, or null while it is open. */
  public final AtomicReference<String> dispatchClosed = new AtomicReference<>();

  /**
   * When set, the next dispatch waits this long at the gate, before its claim, as a dispatch whose
   * task was lost on its way or stalled on the worker would; then {@link #stallsEnded} counts it.
   */
  public final AtomicReference<Duration> stallNextDispatch = new AtomicReference<>();

  public final AtomicInteger stallsEnded = new AtomicInteger();

  /** How many dispatch attempts the closed gate turned away. */
  public final AtomicInteger turnedAway = new AtomicInteger();

  /** While true, the spending allowance grants nothing. */
  public final AtomicBoolean allowanceExhausted = new AtomicBoolean();

  /** Reservations the exhausted allowance turned away. */
  public final AtomicInteger allowanceRefusals = new AtomicInteger();

  private final ArtifactStore store;
  private final Duration readTimeout;
  private final ReviewSettings review;
  private final SendWindow sendWindow;

  public GenerationHarness(Path artifacts) {
    this(artifacts, simulator(), API_KEY, null, Duration.ofSeconds(2));
  }

  /** With these review settings, e.g. reviews that settle themselves. */
  public GenerationHarness(Path artifacts, ReviewSettings review) {
    this(artifacts, simulator(), API_KEY, null, Duration.ofSeconds(2), true, review);
  }

  /**
   * @param store the artifact store, or null for a local directory under {@code artifacts}
   */
  public GenerationHarness(
      Path artifacts,
      GenaceSimulator simulator,
      String apiKey,
      ArtifactStore store,
      Duration readTimeout) {
    this(artifacts, simulator, apiKey, store, readTimeout, true, TestWorkers.OPERATOR_REVIEWS);
  }

  /**
   * @param workersOnTestFactory false to leave both queues to workers the test starts itself (see
   *     {@link #newDetachedFactory})
   */
  public GenerationHarness(
      Path artifacts,
      GenaceSimulator simulator,
      String apiKey,
      ArtifactStore store,
      Duration readTimeout,
      boolean workersOnTestFactory) {
    this(
        artifacts,
        simulator,
        apiKey,
        store,
        readTimeout,
        workersOnTestFactory,
        TestWorkers.OPERATOR_REVIEWS);
  }

  public GenerationHarness(
      Path artifacts,
      GenaceSimulator simulator,
      String apiKey,
      ArtifactStore store,
      Duration readTimeout,
      boolean workersOnTestFactory,
      ReviewSettings review) {
    this(
        artifacts,
        simulator,
        apiKey,
        store,
        readTimeout,
        workersOnTestFactory,
        review,
        new SendWindow(readTimeout, TestWorkers.RECORDING_MARGIN));
  }

  /**
   * @param sendWindow how long after its claim a POST may leave; by default the one the read
   *     timeout and {@link TestWorkers#RECORDING_MARGIN} make
   */
  public GenerationHarness(
      Path artifacts,
      GenaceSimulator simulator,
      String apiKey,
      ArtifactStore store,
      Duration readTimeout,
      boolean workersOnTestFactory,
      ReviewSettings review,
      SendWindow sendWindow) {
    this.review = review;
    this.sendWindow = sendWindow;
    this.simulator = simulator;
    this.artifacts = artifacts;
    this.store = store == null ? new LocalDirectoryArtifactStore(artifacts) : store;
    this.readTimeout = readTimeout;
    this.temporal = TestWorkflowEnvironment.newInstance();
    registerSearchAttributes(temporal);
    this.ledger = new OperationsLedger(TestDatabase.dataSource(), LEASE);
    if (workersOnTestFactory) {
      workers("worker-1", genaceClient(apiKey))
          .gate(this::closedReason)
          .registerAll(temporal.getWorkerFactory());
    }
    temporal.start();
    this.client = new GenerationClient(temporal.getWorkflowClient());
  }

  /**
   * The test server, the ledger and the simulator, and no worker: the test starts the workers it
   * splits on factories of their own ({@link #newDetachedFactory}).
   */
  public static GenerationHarness withoutWorkers(Path artifacts) {
    return new GenerationHarness(
        artifacts, simulator(), API_KEY, null, Duration.ofSeconds(2), false);
  }

  /** A simulator whose jobs take 300 ms and that accepts {@link #API_KEY}. */
  public static GenaceSimulator simulator() {
    return GenaceSimulator.builder()
        .apiKey(API_KEY)
        .faults(Faults.DEFAULT.withJobDurationMs(300))
        .start();
  }

  public static void registerSearchAttributes(TestWorkflowEnvironment temporal) {
    temporal.registerSearchAttribute(
        GenerationSearchAttributes.PHASE.getName(), IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD);
    temporal.registerSearchAttribute(
        GenerationSearchAttributes.REMOTE_JOB_ID.getName(),
        IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD);
    temporal.registerSearchAttribute(
        GenerationSearchAttributes.NEEDS_REVIEW.getName(),
        IndexedValueType.INDEXED_VALUE_TYPE_BOOL);
    temporal.registerSearchAttribute(
        GenerationSearchAttributes.CREDITS.getName(), IndexedValueType.INDEXED_VALUE_TYPE_INT);
  }

  public GenaceClient genaceClient(String apiKey) {
    return TestWorkers.genaceClient(simulator.baseUrl(), apiKey, readTimeout);
  }

  /**
   * Workers as this harness runs them: its ledger, store, review settings and switchable allowance,
   * the fleet-wide circuit, the gate open; the caller may change any of it before registering.
   */
  public TestWorkers workers(String workerId, GenaceClient genace) {
    return TestWorkers.of(ledger, genace, store)
        .workerId(workerId)
        .review(review)
        .sendWindow(sendWindow)
        .allowance(new SwitchableAllowance())
        .circuit(new DispatchCircuit(new WorkerControls(TestDatabase.dataSource()), workerId));
  }

  /**
   * A factory of its own on the test server, as a second worker process would have; the test server
   * does not hold its clock for activities running there. The caller starts it.
   */
  public WorkerFactory newDetachedFactory() {
    // No workflow cache, hence no sticky queue: the test server never times out a sticky queue
    // whose worker went away, where a real server falls back to the normal queue after 5 s.
    return WorkerFactory.newInstance(
        WorkflowClient.newInstance(
            temporal.getWorkflowServiceStubs(), temporal.getWorkflowClient().getOptions()),
        WorkerFactoryOptions.newBuilder().setWorkflowCacheSize(0).build());
  }

  private Optional<String> closedReason() {
    Duration stall = stallNextDispatch.getAndSet(null);
    if (stall != null) {
      try {
        Thread.sleep(stall.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      stallsEnded.incrementAndGet();
    }
    Optional<String> closed = Optional.ofNullable(dispatchClosed.get());
    if (closed.isPresent()) {
      turnedAway.incrementAndGet();
    }
    return closed;
  }

  /** Grants everything unless the test exhausted it. */
  private final class SwitchableAllowance implements SpendingAllowance {
    @Override
    public Reservation reserve(String operationId, String account, String model) {
      if (allowanceExhausted.get()) {
        allowanceRefusals.incrementAndGet();
        return new Reservation(false, "credits per window exhausted");
      }
      return new Reservation(true, "granted");
    }

    @Override
    public void settle(String operationId, boolean spent) {}
  }

  /**
   * Starts an operation's workflow with an input it cannot read: every workflow task of the run
   * fails, as each does after a release that changed the workflow's commands without a version.
   */
  public static void startWorkflowThatCannotRun(WorkflowClient client, String operationId) {
    client
        .newUntypedWorkflowStub(
            "GenerationWorkflow",
            WorkflowOptions.newBuilder()
                .setWorkflowId(GenerationWorkflow.workflowId(operationId))
                .setTaskQueue(TaskQueues.OPERATIONS)
                .build())
        .start("not a request", "nor carried state");
  }

  public static GenerationRequest request(String operationId) {
    return new GenerationRequest(operationId, "image-v1", "{\"prompt\":\"a red fox\"}");
  }

  /** Waits (in real time, so the test server does not skip ahead) for the ledger to show it. */
  public OperationRow awaitPhase(String operationId, Phase phase) {
    org.awaitility.Awaitility.await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> ledger.find(operationId).map(r -> r.phase() == phase).orElse(false));
    return ledger.get(operationId);
  }

  /**
   * Replays the operation's history against the current workflow code (a non-deterministic change
   * fails here), and saves it as a regression fixture when {@code genace.recordHistories} names a
   * directory.
   */
  public void replayAndRecord(String operationId, String fixtureName) throws Exception {
    WorkflowExecutionHistory history =
        temporal.getWorkflowClient().fetchHistory(GenerationWorkflow.workflowId(operationId));
    WorkflowReplayer.replayWorkflowExecution(history, GenerationWorkflowImpl.class);
    requireTimerSummaries(history);
    String directory = System.getProperty("genace.recordHistories");
    if (directory != null) {
      Files.writeString(Path.of(directory, fixtureName + ".json"), history.toJson(true));
    }
  }

  /**
   * Replays the history of one lifecycle pass (a run of the sweeper's or the retention's workflow)
   * against the current code and, when {@code genace.recordHistories} names the generation
   * histories' directory, saves it beside them in {@code directoryName}.
   */
  public void replayAndRecordPass(
      String workflowId, Class<?> workflowImpl, String directoryName, String fixtureName)
      throws Exception {
    WorkflowExecutionHistory history = temporal.getWorkflowClient().fetchHistory(workflowId);
    WorkflowReplayer.replayWorkflowExecution(history, workflowImpl);
    String directory = System.getProperty("genace.recordHistories");
    if (directory != null) {
      Path target = Path.of(directory).resolveSibling(directoryName);
      Files.createDirectories(target);
      Files.writeString(target.resolve(fixtureName + ".json"), history.toJson(true));
    }
  }

  /**
   * Whether the operation's current run has no workflow task scheduled or under way: its history
   * ends with a completed workflow task and the commands that task issued.
   */
  public boolean noWorkflowTaskPending(String operationId) {
    boolean pending = true;
    for (HistoryEvent event : currentRunEvents(operationId)) {
      EventType type = event.getEventType();
      if (type == EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED) {
        pending = false;
      } else if (type == EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED) {
        pending = true;
      }
    }
    return !pending;
  }

  /** How many events the operation's current run has recorded. */
  public int historyLength(String operationId) {
    return currentRunEvents(operationId).size();
  }

  /** The current run's history, read page by page from the service, as an operator's tool would. */
  private List<HistoryEvent> currentRunEvents(String operationId) {
    WorkflowExecution execution =
        WorkflowExecution.newBuilder()
            .setWorkflowId(GenerationWorkflow.workflowId(operationId))
            .build();
    List<HistoryEvent> events = new ArrayList<>();
    ByteString page = ByteString.EMPTY;
    do {
      GetWorkflowExecutionHistoryResponse response =
          temporal
              .getWorkflowServiceStubs()
              .blockingStub()
              .getWorkflowExecutionHistory(
                  GetWorkflowExecutionHistoryRequest.newBuilder()
                      .setNamespace(temporal.getNamespace())
                      .setExecution(execution)
                      .setNextPageToken(page)
                      .build());
      events.addAll(response.getHistory().getEventsList());
      page = response.getNextPageToken();
    } while (!page.isEmpty());
    return events;
  }

  /**
   * Every run of the operation's workflow, first to last: the latest run, then each run it
   * continued from.
   */
  public List<WorkflowExecutionHistory> runs(String operationId) {
    WorkflowClient client = temporal.getWorkflowClient();
    String workflowId = GenerationWorkflow.workflowId(operationId);
    List<WorkflowExecutionHistory> runs = new ArrayList<>();
    WorkflowExecutionHistory run = client.fetchHistory(workflowId);
    while (true) {
      runs.add(0, run);
      String previous =
          run.getEvents()
              .get(0)
              .getWorkflowExecutionStartedEventAttributes()
              .getContinuedExecutionRunId();
      if (previous.isEmpty()) {
        return runs;
      }
      run = client.fetchHistory(workflowId, previous);
    }
  }

  /**
   * Replays every run of the operation, and saves its first run and its last one as regression
   * fixtures ({@code NAME-first-run.json.gz}, {@code NAME-last-run.json.gz}, compressed: a run that
   * continued as new holds about 2,000 events) when {@code genace.recordHistories} names a
   * directory.
   */
  public void replayAndRecordRuns(String operationId, String fixtureName) throws Exception {
    List<WorkflowExecutionHistory> runs = runs(operationId);
    for (WorkflowExecutionHistory run : runs) {
      WorkflowReplayer.replayWorkflowExecution(run, GenerationWorkflowImpl.class);
      requireTimerSummaries(run);
    }
    String directory = System.getProperty("genace.recordHistories");
    if (directory != null) {
      writeCompressed(runs.get(0), Path.of(directory, fixtureName + "-first-run.json.gz"));
      writeCompressed(
          runs.get(runs.size() - 1), Path.of(directory, fixtureName + "-last-run.json.gz"));
    }
  }

  private static void writeCompressed(WorkflowExecutionHistory run, Path file) throws IOException {
    try (Writer out =
        new OutputStreamWriter(
            new GZIPOutputStream(Files.newOutputStream(file)), StandardCharsets.UTF_8)) {
      out.write(run.toJson(true));
    }
  }

  /** Every timer says in the Web UI what it waits for, instead of showing its bare id. */
  public static void requireTimerSummaries(WorkflowExecutionHistory history) {
    for (HistoryEvent event : history.getEvents()) {
      if (event.getEventType() == EventType.EVENT_TYPE_TIMER_STARTED
          && !event.getUserMetadata().hasSummary()) {
        throw new AssertionError("timer without a summary: event " + event.getEventId());
      }
    }
  }

  /** Waits (in real time) until the ledger records this outcome of a dispatch attempt. */
  public void awaitDispatchOutcome(String operationId, String outcome) {
    org.awaitility.Awaitility.await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                ledger
                    .find(operationId)
                    .flatMap(OperationRow::dispatchOutcome)
                    .map(outcome::equals)
                    .orElse(false));
  }

  /**
   * One pass of the orphan sweeper's workflow, under its own id (the test server has no schedules).
   */
  public com.genace.workflows.lifecycle.SweepReport sweep(int pass) {
    return temporal
        .getWorkflowClient()
        .newWorkflowStub(
            com.genace.workflows.lifecycle.SweepWorkflow.class,
            WorkflowOptions.newBuilder()
                .setWorkflowId(
                    com.genace.workflows.lifecycle.SweepWorkflow.WORKFLOW_ID + "-" + pass)
                .setTaskQueue(TaskQueues.OPERATIONS)
                .build())
        .sweep();
  }

  public OperationRow row(String operationId) {
    return ledger.get(operationId);
  }

  public long postsFor(String operationId) {
    return simulator.stats().postsFor(operationId);
  }

  @Override
  public void close() {
    temporal.close();
    simulator.close();
  }
}
