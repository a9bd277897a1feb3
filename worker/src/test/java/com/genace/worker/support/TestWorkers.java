package com.genace.worker.support;

import com.genace.allowance.SpendingAllowance;
import com.genace.client.GenaceClient;
import com.genace.client.GenaceClientConfig;
import com.genace.client.HttpGenaceClient;
import com.genace.controls.DispatchCircuit;
import com.genace.delivery.ArtifactStore;
import com.genace.dispatch.DispatchGate;
import com.genace.dispatch.DispatchListener;
import com.genace.dispatch.SendWindow;
import com.genace.ledger.OperationsLedger;
import com.genace.ledger.WaitLimits;
import com.genace.observation.PollingPolicy;
import com.genace.review.ReviewSettings;
import com.genace.stats.ActivityStats;
import com.genace.worker.GenerationWorkers;
import io.temporal.worker.WorkerFactory;
import io.temporal.worker.WorkerOptions;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;

/**
 * The one way the test harnesses assemble workers in their own JVM: {@link
 * GenerationWorkers.Dependencies} with test defaults, and the queues registered through {@link
 * GenerationWorkers} as {@code WorkerStack} registers them in production. What {@code WorkerStack}
 * adds around them (the pool from {@code DATABASE_URL}, metrics, interceptors, concurrency limits,
 * the circuit probe) belongs to a worker process; tests of that run {@code WorkerProcess} itself.
 *
 * <p>Defaults: worker id {@code test-worker}, the gate open, status polls every 50–200 ms, reviews
 * that wait for the operator the test plays, no dispatch listener, no allowance, no circuit, the
 * system clock. Each setter replaces one of them.
 */
public final class TestWorkers {

  /** Fast enough that a 300 ms render is seen within a few status polls. */
  public static final PollingPolicy FAST_POLLING =
      new PollingPolicy(Duration.ofMillis(50), Duration.ofMillis(200), 1.5, 0.2);

  /** Reviews wait for the operator a test plays; the search is repeated for one second. */
  public static final ReviewSettings OPERATOR_REVIEWS =
      new ReviewSettings(false, Duration.ofSeconds(1), Duration.ofMillis(100));

  private ActivityStats stats = ActivityStats.NONE;
  private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(2);

  /**
   * The tests' recording margin: their ledger is a local PostgreSQL, where recording an answer
   * takes milliseconds, and the harness's 3 s leases with a 2 s read timeout leave no room for the
   * production margin ({@link SendWindow#DEFAULT_RECORDING_MARGIN}), which the worker would refuse.
   */
  public static final Duration RECORDING_MARGIN = Duration.ofMillis(250);

  /** The read timeout of most tests' Genace clients ({@link GenerationHarness}'s default). */
  public static final Duration READ_TIMEOUT = Duration.ofSeconds(2);

  private final OperationsLedger ledger;
  private final GenaceClient genace;
  private final ArtifactStore store;
  private String workerId = "test-worker";
  private DispatchGate gate = DispatchGate.OPEN;
  private PollingPolicy polling = FAST_POLLING;
  private ReviewSettings review = OPERATOR_REVIEWS;
  private DispatchListener listener = DispatchListener.NONE;
  private SpendingAllowance allowance = SpendingAllowance.UNLIMITED;
  private DispatchCircuit circuit = DispatchCircuit.NONE;
  private Clock clock = Clock.systemUTC();
  private SendWindow sendWindow = new SendWindow(READ_TIMEOUT, RECORDING_MARGIN);

  private TestWorkers(OperationsLedger ledger, GenaceClient genace, ArtifactStore store) {
    this.ledger = ledger;
    this.genace = genace;
    this.store = store;
  }

  /** Workers on this ledger, speaking to Genace through {@code genace}, delivering to store. */
  public static TestWorkers of(OperationsLedger ledger, GenaceClient genace, ArtifactStore store) {
    return new TestWorkers(ledger, genace, store);
  }

  /** The production HTTP client against a simulator (or any Genace) at {@code baseUrl}. */
  public static GenaceClient genaceClient(URI baseUrl, String apiKey, Duration readTimeout) {
    return new HttpGenaceClient(
        GenaceClientConfig.of(baseUrl, apiKey).withTimeouts(CONNECT_TIMEOUT, readTimeout));
  }

  public TestWorkers workerId(String value) {
    this.workerId = value;
    return this;
  }

  public TestWorkers gate(DispatchGate value) {
    this.gate = value;
    return this;
  }

  public TestWorkers polling(PollingPolicy value) {
    this.polling = value;
    return this;
  }

  public TestWorkers review(ReviewSettings value) {
    this.review = value;
    return this;
  }

  public TestWorkers listener(DispatchListener value) {
    this.listener = value;
    return this;
  }

  public TestWorkers allowance(SpendingAllowance value) {
    this.allowance = value;
    return this;
  }

  public TestWorkers circuit(DispatchCircuit value) {
    this.circuit = value;
    return this;
  }

  /** How long after its claim a POST may leave: by default for a 2 s read timeout. */
  public TestWorkers sendWindow(SendWindow value) {
    this.sendWindow = value;
    return this;
  }

  public TestWorkers clock(Clock value) {
    this.clock = value;
    return this;
  }

  /** The dependencies the activities get: the one place the tests build them. */
  public GenerationWorkers.Dependencies dependencies() {
    return new GenerationWorkers.Dependencies(
        ledger,
        genace,
        store,
        workerId,
        gate,
        polling,
        clock,
        listener,
        allowance,
        circuit,
        review,
        stats,
        WaitLimits.DEFAULT,
        sendWindow);
  }

  /** Where the activities count what they do (nothing, unless a test reads the counts). */
  public TestWorkers stats(ActivityStats stats) {
    this.stats = stats;
    return this;
  }

  /**
   * Registers every queue's worker (operations with the sweeper, observation, dispatch) on {@code
   * factory} with default worker options; the caller starts the factory.
   */
  public GenerationWorkers.Dependencies registerAll(WorkerFactory factory) {
    GenerationWorkers.Dependencies deps = dependencies();
    GenerationWorkers.operationsWorker(factory, deps, WorkerOptions.getDefaultInstance());
    GenerationWorkers.dispatchWorker(factory, deps, WorkerOptions.getDefaultInstance());
    return deps;
  }
}
