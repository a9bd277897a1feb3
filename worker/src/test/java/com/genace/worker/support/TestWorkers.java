package com.genace.worker.support;

import com.genace.activities.allowance.SpendingAllowance;
import com.genace.activities.controls.DispatchCircuit;
import com.genace.activities.delivery.ArtifactStore;
import com.genace.activities.dispatch.DispatchGate;
import com.genace.activities.dispatch.DispatchListener;
import com.genace.activities.dispatch.SendWindow;
import com.genace.activities.genace.GenaceClient;
import com.genace.activities.genace.GenaceClientConfig;
import com.genace.activities.genace.HttpGenaceClient;
import com.genace.activities.ledger.OperationsLedger;
import com.genace.activities.observation.PollingPolicy;
import com.genace.activities.review.ReviewSettings;
import com.genace.activities.stats.ActivityStats;
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

  private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(2);

  /**
   * The tests' recording margin: their ledger is a local PostgreSQL, where recording an answer
   * takes milliseconds, and the harness's 3 s leases with a 2 s read timeout leave no room for the
   * production margin ({@link SendWindow#DEFAULT_RECORDING_MARGIN}), which the worker would refuse.
   */
  public static final Duration RECORDING_MARGIN = Duration.ofMillis(250);

  /** The read timeout of most tests' Genace clients ({@link GenerationHarness}'s default). */
  public static final Duration READ_TIMEOUT = Duration.ofSeconds(2);

  /** The dependencies as set so far: the test defaults, then each setter's value. */
  private final GenerationWorkers.Dependencies.Builder dependencies;

  private TestWorkers(OperationsLedger ledger, GenaceClient genace, ArtifactStore store) {
    this.dependencies =
        GenerationWorkers.Dependencies.builder(ledger, genace, store, "test-worker")
            .polling(FAST_POLLING)
            .review(OPERATOR_REVIEWS)
            .sendWindow(new SendWindow(READ_TIMEOUT, RECORDING_MARGIN));
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
    dependencies.workerId(value);
    return this;
  }

  public TestWorkers gate(DispatchGate value) {
    dependencies.gate(value);
    return this;
  }

  public TestWorkers polling(PollingPolicy value) {
    dependencies.polling(value);
    return this;
  }

  public TestWorkers review(ReviewSettings value) {
    dependencies.review(value);
    return this;
  }

  public TestWorkers listener(DispatchListener value) {
    dependencies.listener(value);
    return this;
  }

  public TestWorkers allowance(SpendingAllowance value) {
    dependencies.allowance(value);
    return this;
  }

  public TestWorkers circuit(DispatchCircuit value) {
    dependencies.circuit(value);
    return this;
  }

  /** How long after its claim a POST may leave: by default for a 2 s read timeout. */
  public TestWorkers sendWindow(SendWindow value) {
    dependencies.sendWindow(value);
    return this;
  }

  public TestWorkers clock(Clock value) {
    dependencies.clock(value);
    return this;
  }

  /** The dependencies the activities get: the one place the tests build them. */
  public GenerationWorkers.Dependencies dependencies() {
    return dependencies.build();
  }

  /** Where the activities count what they do (nothing, unless a test reads the counts). */
  public TestWorkers stats(ActivityStats stats) {
    dependencies.stats(stats);
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
