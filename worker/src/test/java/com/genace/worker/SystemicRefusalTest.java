package com.genace.worker;

import static com.genace.worker.support.GenerationHarness.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.genace.activities.controls.CircuitProbe;
import com.genace.activities.controls.DispatchCircuit;
import com.genace.activities.controls.WorkerControls;
import com.genace.activities.delivery.LocalDirectoryArtifactStore;
import com.genace.activities.dispatch.SendWindow;
import com.genace.activities.ledger.OperationRow;
import com.genace.activities.ledger.OperationsLedger;
import com.genace.activities.review.ReviewSettings;
import com.genace.activities.testing.DatabaseExtension;
import com.genace.activities.testing.TestDatabase;
import com.genace.client.model.Phase;
import com.genace.testkit.simulator.SimulatorStats;
import com.genace.worker.support.GenerationHarness;
import com.genace.worker.support.TestWorkers;
import io.temporal.worker.WorkerFactory;
import io.temporal.worker.WorkerOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Genace refuses the account mid-run with a backlog queued: the fleet-wide circuit holds every
 * operation back instead of failing it, and dispatch resumes once the account works again.
 *
 * <p>Two dispatch workers with one dispatch slot each (so "one refused POST per worker" is the
 * bound), a third worker for workflows, observation and delivery, and each dispatch worker's
 * circuit probe. The test waits in real time on the ledger (never on a workflow result), so the
 * test server does not skip the workflows' recheck timers. Leases and read timeouts are those of
 * production, so that a slow machine cannot turn a POST into an unknown outcome.
 */
@ExtendWith(DatabaseExtension.class)
class SystemicRefusalTest {

  static final int OPERATIONS = 50;
  static final int DISPATCH_WORKERS = 2;
  static final Duration PATIENCE = Duration.ofMinutes(3);
  static final Duration READ_TIMEOUT = Duration.ofSeconds(30);

  @TempDir Path artifacts;

  private GenerationHarness harness;
  private final WorkerControls operator = new WorkerControls(TestDatabase.dataSource());
  private final List<WorkerFactory> factories = new ArrayList<>();
  private final List<CircuitProbe> probes = new ArrayList<>();

  @BeforeEach
  void start() {
    harness =
        new GenerationHarness(
            artifacts,
            GenerationHarness.simulator(),
            GenerationHarness.API_KEY,
            null,
            READ_TIMEOUT,
            false);
    // Slow enough that most of the backlog is still queued when the account is refused.
    harness.simulator.setFaults(harness.simulator.faults().withLatencyMs(100));
    WorkerFactory operations = newFactory();
    GenerationWorkers.operationsWorker(
        operations, dependencies("worker-w"), WorkerOptions.getDefaultInstance());
    operations.start();
    factories.add(operations);
    for (int i = 1; i <= DISPATCH_WORKERS; i++) {
      startDispatcher("worker-d" + i);
    }
  }

  @AfterEach
  void stop() {
    probes.forEach(CircuitProbe::close);
    factories.forEach(WorkerFactory::shutdownNow);
    harness.close();
  }

  @Test
  void a_revoked_key_holds_the_backlog_until_the_key_works_again() throws Exception {
    List<String> ids = startOperations("auth");
    awaitAccepted(ids, 5);

    harness.simulator.setFaults(harness.simulator.faults().withRefuseStatus(401).withRefuseRate(1));

    awaitCircuit("genace_auth_refused");
    assertThat(aProbe().probe()).as("the model list is refused too").isFalse();
    assertThat(refusedPosts()).isBetween(1L, (long) DISPATCH_WORKERS);
    assertThat(waitingOperations(ids)).isPositive();
    assertNoneFailedOrInReview(ids);

    harness.simulator.setFaults(harness.simulator.faults().withRefuseRate(0));

    awaitAllDelivered(ids);
    assertThat(operator.dispatchPause()).as("the probe closed the circuit").isEmpty();
    assertThat(refusedPosts()).isBetween(1L, (long) DISPATCH_WORKERS);
    assertOneAcceptedPostEach(ids);
    harness.replayAndRecord(anAccountRefusedOperation(ids), "account-refused-then-delivered");
  }

  @Test
  void empty_credits_hold_the_backlog_until_an_operator_resumes_after_topping_up()
      throws Exception {
    List<String> ids = startOperations("credits");
    awaitAccepted(ids, 5);

    harness.simulator.setFaults(harness.simulator.faults().withRefuseStatus(402).withRefuseRate(1));

    awaitCircuit("genace_credits_exhausted");
    assertThat(refusedPosts()).isBetween(1L, (long) DISPATCH_WORKERS);
    assertThat(aProbe().probe()).as("nothing free tells the balance").isFalse();
    assertNoneFailedOrInReview(ids);

    // A resume while the balance is still empty: the next dispatch is the trial, and its 402
    // opens the circuit again at once.
    long beforeTrial = refusedPosts();
    operator.resumeDispatch("alice", "trying again");
    await().atMost(PATIENCE).until(() -> refusedPosts() > beforeTrial);
    awaitCircuit("genace_credits_exhausted");
    assertThat(refusedPosts() - beforeTrial).isBetween(1L, (long) DISPATCH_WORKERS);
    assertNoneFailedOrInReview(ids);

    harness.simulator.setFaults(harness.simulator.faults().withRefuseRate(0));
    operator.resumeDispatch("alice", "credits added");

    awaitAllDelivered(ids);
    assertThat(refusedPosts()).isBetween(2L, 2L * DISPATCH_WORKERS);
    assertOneAcceptedPostEach(ids);
  }

  private void startDispatcher(String workerId) {
    WorkerFactory factory = newFactory();
    GenerationWorkers.Dependencies deps = dependencies(workerId);
    GenerationWorkers.dispatchWorker(
        factory, deps, WorkerOptions.newBuilder().setMaxConcurrentActivityExecutionSize(1).build());
    factory.start();
    factories.add(factory);
    CircuitProbe probe = new CircuitProbe(deps.circuit(), deps.genace());
    probe.start(Duration.ofMillis(200));
    probes.add(probe);
  }

  /**
   * As a worker process has them: the production lease (the harness's is 3 s), the fleet-wide
   * circuit, and reviews that settle themselves; no allowance.
   */
  private GenerationWorkers.Dependencies dependencies(String workerId) {
    return TestWorkers.of(
            new OperationsLedger(
                TestDatabase.dataSource(), OperationsLedger.DEFAULT_LEASE_DURATION),
            harness.genaceClient(GenerationHarness.API_KEY),
            new LocalDirectoryArtifactStore(artifacts))
        .workerId(workerId)
        .sendWindow(SendWindow.forReadTimeout(READ_TIMEOUT))
        .review(ReviewSettings.DEFAULT)
        .circuit(new DispatchCircuit(new WorkerControls(TestDatabase.dataSource()), workerId))
        .dependencies();
  }

  private WorkerFactory newFactory() {
    return harness.newDetachedFactory();
  }

  private CircuitProbe aProbe() {
    return new CircuitProbe(
        new DispatchCircuit(operator, "test-probe"),
        harness.genaceClient(GenerationHarness.API_KEY));
  }

  private List<String> startOperations(String prefix) {
    List<String> ids = IntStream.range(0, OPERATIONS).mapToObj(i -> prefix + "-" + i).toList();
    ids.forEach(id -> harness.client.start(request(id)));
    return ids;
  }

  private void awaitAccepted(List<String> ids, int atLeast) {
    await()
        .atMost(PATIENCE)
        .until(
            () ->
                ids.stream()
                        .filter(id -> harness.simulator.jobsForOperation(id).size() == 1)
                        .count()
                    >= atLeast);
  }

  private void awaitCircuit(String reason) {
    await()
        .atMost(PATIENCE)
        .until(
            () ->
                operator
                    .dispatchPause()
                    .flatMap(DispatchCircuit::tripOf)
                    .map(trip -> trip.problem().wire())
                    .equals(Optional.of(reason)));
  }

  private void awaitAllDelivered(List<String> ids) {
    await()
        .atMost(PATIENCE)
        .pollInterval(Duration.ofMillis(500))
        .until(() -> ids.stream().allMatch(id -> phase(id) == Phase.DELIVERED));
  }

  /** POSTs that created nothing: with no other fault injected, exactly the refused ones. */
  private long refusedPosts() {
    SimulatorStats stats = harness.simulator.stats();
    return stats.postsTotal() - stats.jobsCreated();
  }

  private long waitingOperations(List<String> ids) {
    return ids.stream().filter(id -> phase(id) == Phase.PENDING).count();
  }

  private void assertNoneFailedOrInReview(List<String> ids) {
    assertThat(ids)
        .allSatisfy(id -> assertThat(phase(id)).as(id).isNotIn(Phase.FAILED, Phase.IN_REVIEW));
  }

  private void assertOneAcceptedPostEach(List<String> ids) {
    assertThat(ids)
        .allSatisfy(
            id -> {
              assertThat(harness.simulator.jobsForOperation(id)).as(id).hasSize(1);
              OperationRow row = harness.row(id);
              assertThat(row.reviewReason()).as(id).isEmpty();
            });
    long extraPosts = ids.stream().mapToLong(id -> harness.postsFor(id) - 1).sum();
    assertThat(extraPosts)
        .as("every POST beyond the accepted one was refused")
        .isEqualTo(refusedPosts());
  }

  private String anAccountRefusedOperation(List<String> ids) {
    return ids.stream()
        .filter(
            id ->
                harness.ledger.history(id).stream()
                    .anyMatch(t -> t.detailsJson().contains("account_refused")))
        .findFirst()
        .orElseThrow();
  }

  private Phase phase(String id) {
    return harness.ledger.find(id).map(OperationRow::phase).orElse(Phase.PENDING);
  }
}
