package com.genace.activities.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.genace.activities.delivery.support.Artifacts;
import com.genace.activities.delivery.support.ReadyToDeliver;
import com.genace.activities.genace.CreateOutcome;
import com.genace.activities.genace.CreateRequest;
import com.genace.activities.genace.GenaceClient;
import com.genace.activities.genace.GenaceClientConfig;
import com.genace.activities.genace.HttpGenaceClient;
import com.genace.activities.genace.JobOutput;
import com.genace.activities.genace.JobSnapshot;
import com.genace.activities.ledger.Lease;
import com.genace.activities.ledger.NewOperation;
import com.genace.activities.ledger.OperationsLedger;
import com.genace.activities.ledger.WriteResult;
import com.genace.activities.testing.LedgerFixtures;
import com.genace.activities.testing.S3Server;
import com.genace.client.model.NextAction;
import com.genace.client.model.Phase;
import com.genace.testkit.simulator.Faults;
import com.genace.testkit.simulator.GenaceSimulator;
import com.genace.workflows.delivery.DeliveryActivities;
import com.genace.workflows.delivery.DeliveryResult;
import com.genace.workflows.model.RemoteStatus;
import com.sun.net.httpserver.HttpServer;
import io.temporal.activity.ActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.failure.ActivityFailure;
import io.temporal.testing.TestActivityEnvironment;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The delivery activity with its production parts: the simulator over HTTP, the real ledger and a
 * real S3 server, through Temporal's activity test environment.
 */
class S3DeliveryTest {

  private static final String API_KEY = "sk-delivery-test";
  private static final String PREFIX = "app/out";
  private static final ObjectMapper JSON = new ObjectMapper();

  private final S3Server server = S3Server.get();
  private final S3Client admin = server.client();
  private final String bucket = server.newBucket(admin);

  @RegisterExtension final LedgerFixtures fixtures = LedgerFixtures.fresh(Duration.ofSeconds(4));

  private final OperationsLedger ledger = fixtures.ledger();
  private GenaceSimulator simulator;
  private GenaceClient genace;
  private final List<TestActivityEnvironment> environments = new java.util.ArrayList<>();

  @BeforeEach
  void start() {
    simulator =
        GenaceSimulator.builder()
            .apiKey(API_KEY)
            .seed(5)
            .faults(Faults.DEFAULT.withJobDurationMs(100))
            .start();
    genace = new HttpGenaceClient(GenaceClientConfig.of(simulator.baseUrl(), API_KEY));
  }

  @AfterEach
  void stop() {
    environments.forEach(TestActivityEnvironment::close);
    simulator.close();
    admin.close();
  }

  @Test
  void every_output_lands_at_its_deterministic_key_intact_and_the_manifest_records_it()
      throws Exception {
    JobSnapshot snapshot = delivering("op-1");
    String job = snapshot.id();

    DeliveryResult result = worker("worker-a", store()).deliver("op-1");

    assertThat(result.copied()).isEqualTo(snapshot.outputs().size());
    assertThat(ledger.get("op-1").phase()).isEqualTo(Phase.DELIVERED);
    JsonNode manifest =
        JSON.readTree(ledger.get("op-1").deliveryManifestJson().orElseThrow()).path("artifacts");
    assertThat(manifest.size()).isEqualTo(snapshot.outputs().size());
    for (int i = 0; i < snapshot.outputs().size(); i++) {
      JobOutput output = snapshot.outputs().get(i);
      String key = PREFIX + "/generations/op-1/" + job + "/" + i + ".png";
      byte[] stored = admin.getObjectAsBytes(b -> b.bucket(bucket).key(key)).asByteArray();
      assertThat(Artifacts.sha256(stored)).isEqualTo(output.sha256());
      assertThat(manifest.get(i).path("uri").asText()).isEqualTo("s3://" + bucket + "/" + key);
      assertThat(manifest.get(i).path("bytes").asLong()).isEqualTo(output.bytes());
      assertThat(manifest.get(i).path("sha256").asText()).isEqualTo(output.sha256());
    }
  }

  @Test
  void an_output_already_stored_is_skipped() {
    JobSnapshot snapshot = delivering("op-2");
    JobOutput first = snapshot.outputs().get(0);
    String key = ArtifactKeys.of("op-2", snapshot.id(), 0, first.contentType());
    try (ArtifactStore store = store()) {
      store.put(
          key,
          new ArtifactContent(
              genace.openOutput(first), key, first.bytes(), first.sha256(), "x", null));
    }

    DeliveryResult result = worker("worker-a", store()).deliver("op-2");

    assertThat(result.copied()).isEqualTo(snapshot.outputs().size() - 1);
    assertThat(ledger.get("op-2").phase()).isEqualTo(Phase.DELIVERED);
  }

  @Test
  void an_object_that_differs_is_copied_again() {
    JobSnapshot snapshot = delivering("op-3");
    JobOutput first = snapshot.outputs().get(0);
    String key = PREFIX + "/generations/op-3/" + snapshot.id() + "/0.png";
    byte[] wrong = Artifacts.random((int) first.bytes(), 9);
    admin.putObject(
        b -> b.bucket(bucket).key(key).metadata(Map.of("sha256", Artifacts.sha256(wrong))),
        RequestBody.fromBytes(wrong));

    DeliveryResult result = worker("worker-a", store()).deliver("op-3");

    assertThat(result.copied()).isEqualTo(snapshot.outputs().size());
    byte[] stored = admin.getObjectAsBytes(b -> b.bucket(bucket).key(key)).asByteArray();
    assertThat(Artifacts.sha256(stored)).isEqualTo(first.sha256());
  }

  @Test
  void another_worker_takes_over_a_crashed_delivery_and_copies_only_what_is_missing() {
    JobSnapshot snapshot = delivering("op-4");
    CrashAfterFirstPut crashing = new CrashAfterFirstPut(store());

    assertThatThrownBy(() -> worker("worker-a", crashing).deliver("op-4"))
        .isInstanceOf(ActivityFailure.class);
    assertThat(crashing.puts.get()).isEqualTo(1);
    assertThat(ledger.get("op-4").phase()).isEqualTo(Phase.DELIVERING);
    // worker-a is gone; its lease runs out and worker-b, with a store of its own, takes over.
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () -> ledger.get("op-4").leaseUntil().map(t -> t.isBefore(Instant.now())).orElse(true));

    DeliveryResult result = worker("worker-b", store()).deliver("op-4");

    assertThat(result.copied()).isEqualTo(snapshot.outputs().size() - 1);
    assertThat(result.artifacts()).hasSize(snapshot.outputs().size());
    assertThat(ledger.get("op-4").phase()).isEqualTo(Phase.DELIVERED);
    // Claims leave no history row: the delivery itself is worker-b's.
    assertThat(ledger.history("op-4"))
        .filteredOn(t -> t.accepted() && t.event().equals("delivered"))
        .extracting(t -> t.owner().orElse(""))
        .containsExactly("worker-b");
    for (int i = 0; i < snapshot.outputs().size(); i++) {
      String key = PREFIX + "/generations/op-4/" + snapshot.id() + "/" + i + ".png";
      byte[] stored = admin.getObjectAsBytes(b -> b.bucket(bucket).key(key)).asByteArray();
      assertThat(Artifacts.sha256(stored)).isEqualTo(snapshot.outputs().get(i).sha256());
    }
  }

  @Test
  void a_failed_attempt_hands_its_lease_back_so_the_next_one_delivers_at_once() {
    JobSnapshot snapshot = delivering("op-5");
    CrashAfterFirstPut crashing = new CrashAfterFirstPut(store());

    assertThatThrownBy(() -> worker("worker-a", crashing).deliver("op-5"))
        .isInstanceOf(ActivityFailure.class);

    // No wait for the four-second lease: the failed attempt released it on the way out.
    assertThat(ledger.get("op-5").leaseOwner()).isEmpty();
    DeliveryResult result = worker("worker-b", store()).deliver("op-5");
    assertThat(result.artifacts()).hasSize(snapshot.outputs().size());
    assertThat(ledger.get("op-5").phase()).isEqualTo(Phase.DELIVERED);
  }

  @Test
  void a_transfer_longer_than_the_lease_keeps_it_renewed_and_is_delivered() throws Exception {
    byte[] bytes = Artifacts.random(6 * 1024 * 1024, 8);
    HttpServer slow = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    slow.createContext(
        "/slow",
        exchange -> {
          exchange.sendResponseHeaders(200, bytes.length);
          try (var body = exchange.getResponseBody()) {
            // About 1 MiB a second: six seconds, longer than the four-second lease.
            for (int offset = 0; offset < bytes.length; offset += 64 * 1024) {
              body.write(bytes, offset, Math.min(64 * 1024, bytes.length - offset));
              body.flush();
              sleep(60);
            }
          }
        });
    slow.start();
    try {
      String url = "http://127.0.0.1:" + slow.getAddress().getPort() + "/slow";
      JobOutput output = new JobOutput(url, "video/mp4", bytes.length, Artifacts.sha256(bytes));
      delivering(
          "op-slow", new JobSnapshot("gen_slow", RemoteStatus.SUCCEEDED, List.of(output), null));

      DeliveryResult result = worker("worker-a", store()).deliver("op-slow");

      assertThat(result.copied()).isEqualTo(1);
      assertThat(ledger.get("op-slow").phase()).isEqualTo(Phase.DELIVERED);
      String key = PREFIX + "/generations/op-slow/gen_slow/0.mp4";
      assertThat(admin.getObjectAsBytes(b -> b.bucket(bucket).key(key)).asByteArray())
          .isEqualTo(bytes);
    } finally {
      slow.stop(0);
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private ArtifactStore store() {
    return new S3ArtifactStore(server.client(), bucket, PREFIX, S3ArtifactStore.MIN_PART_SIZE);
  }

  @Test
  void a_quick_delivery_sends_no_heartbeat_and_a_long_one_does() {
    delivering("op-quick");
    delivering("op-long");
    AtomicInteger quickBeats = new AtomicInteger();
    AtomicInteger longBeats = new AtomicInteger();

    worker("worker-a", store(), Clock.systemUTC(), quickBeats).deliver("op-quick");
    // Each reading of this clock is 11 s after the last: every step of the delivery takes longer
    // than the heartbeat interval.
    worker("worker-a", store(), new Stepping(Duration.ofSeconds(11)), longBeats).deliver("op-long");

    assertThat(quickBeats).hasValue(0);
    assertThat(longBeats.get()).isPositive();
    assertThat(ledger.get("op-long").phase()).isEqualTo(Phase.DELIVERED);
  }

  /** A clock that moves on by {@code step} each time it is read (in any zone: it is one line). */
  private static final class Stepping extends Clock {
    private final Duration step;
    private final ZoneId zone;
    private final AtomicReference<Instant> now;

    Stepping(Duration step) {
      this(step, ZoneOffset.UTC, new AtomicReference<>(Instant.now()));
    }

    private Stepping(Duration step, ZoneId zone, AtomicReference<Instant> now) {
      this.step = step;
      this.zone = zone;
      this.now = now;
    }

    @Override
    public Instant instant() {
      return now.updateAndGet(instant -> instant.plus(step));
    }

    @Override
    public ZoneId getZone() {
      return zone;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return new Stepping(step, zone, now);
    }
  }

  private DeliveryActivities worker(String owner, ArtifactStore store) {
    return worker(owner, store, Clock.systemUTC(), new AtomicInteger());
  }

  private DeliveryActivities worker(
      String owner, ArtifactStore store, Clock clock, AtomicInteger heartbeats) {
    TestActivityEnvironment environment = TestActivityEnvironment.newInstance();
    environments.add(environment);
    environment.setActivityHeartbeatListener(Void.class, details -> heartbeats.incrementAndGet());
    environment.registerActivitiesImplementations(
        new DeliveryActivitiesImpl(ledger, genace, store, owner, clock));
    return environment.newActivityStub(
        DeliveryActivities.class,
        ActivityOptions.newBuilder()
            .setStartToCloseTimeout(Duration.ofMinutes(1))
            .setRetryOptions(RetryOptions.newBuilder().setMaximumAttempts(1).build())
            .build());
  }

  /** Created, accepted by the simulator, rendered and observed: ready to deliver. */
  private JobSnapshot delivering(String operationId) {
    assertThat(ledger.create(new NewOperation(operationId, "image-v1", "{\"p\":1}"))).isTrue();
    Lease dispatch = ReadyToDeliver.claim(ledger, operationId, NextAction.DISPATCH);
    assertThat(ledger.markSubmitting(dispatch)).isEqualTo(WriteResult.APPLIED);
    CreateOutcome created =
        genace.create(
            new CreateRequest(
                "image-v1",
                JsonNodeFactory.instance.objectNode().put("prompt", "a fox"),
                operationId));
    String job = ((CreateOutcome.Accepted) created).remoteJobId();
    assertThat(ledger.recordAccepted(dispatch, job)).isEqualTo(WriteResult.APPLIED);
    JobSnapshot done =
        await()
            .atMost(Duration.ofSeconds(10))
            .until(() -> genace.get(job), s -> s.status() == RemoteStatus.SUCCEEDED);
    assertThat(done.outputs()).isNotEmpty();
    ReadyToDeliver.recordSucceeded(ledger, operationId, done);
    return done;
  }

  /** Accepted as {@code snapshot}'s job, which succeeded with its outputs: ready to deliver. */
  private void delivering(String operationId, JobSnapshot snapshot) {
    ReadyToDeliver.acceptedAndSucceeded(ledger, operationId, "video-v1", snapshot);
  }

  /** Stores, then fails before the manifest is recorded: what a crash in between would do. */
  private static final class CrashAfterFirstPut implements ArtifactStore {
    private final ArtifactStore store;
    final AtomicInteger puts = new AtomicInteger();

    CrashAfterFirstPut(ArtifactStore store) {
      this.store = store;
    }

    @Override
    public void check() {
      store.check();
    }

    @Override
    public boolean holds(String key, long bytes, String sha256) {
      return store.holds(key, bytes, sha256);
    }

    @Override
    public void put(String key, ArtifactContent content) {
      store.put(key, content);
      puts.incrementAndGet();
      throw new IllegalStateException("worker crashed after storing " + key);
    }

    @Override
    public String locate(String key) {
      return store.locate(key);
    }
  }
}
