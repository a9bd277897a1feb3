package com.genace.activities.delivery;

import static org.assertj.core.api.Assertions.assertThat;

import com.genace.activities.delivery.support.Artifacts;
import com.genace.activities.delivery.support.ReadyToDeliver;
import com.genace.activities.genace.GenaceClientConfig;
import com.genace.activities.genace.HttpGenaceClient;
import com.genace.activities.genace.JobOutput;
import com.genace.activities.genace.JobSnapshot;
import com.genace.activities.ledger.OperationsLedger;
import com.genace.activities.testing.LedgerFixtures;
import com.genace.activities.testing.S3Server;
import com.genace.client.model.Phase;
import com.genace.testkit.ThrottledLink;
import com.genace.workflows.delivery.DeliveryActivities;
import com.genace.workflows.delivery.DeliveryResult;
import com.genace.workflows.model.RemoteStatus;
import com.sun.net.httpserver.HttpServer;
import io.temporal.activity.ActivityOptions;
import io.temporal.client.WorkflowOptions;
import io.temporal.common.RetryOptions;
import io.temporal.testing.TestEnvironmentOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * A delivery whose upload to S3 is slow: each part takes longer than the lease and than the
 * activity's heartbeat timeout. Uploading bytes is progress, so the one attempt keeps both and
 * delivers; were it silent while a part uploads, Temporal would start another attempt beside it,
 * and the lease would run out and the upload restart from part 1.
 *
 * <p>Real parts: the ledger, S3Proxy behind a throttled TCP link, the production S3 client and
 * store, and the Temporal test server (in real time, so that the heartbeat timeout is enforced as
 * on a real server).
 */
class SlowS3UploadTest {

  private static final String QUEUE = "slow-s3-upload-test";
  private static final String PREFIX = "app/out";

  /** Shorter than a part's upload, as are the heartbeat timeout and the lease. */
  private static final Duration HEARTBEAT_TIMEOUT = Duration.ofSeconds(4);

  private static final Duration LEASE = Duration.ofSeconds(4);

  /** 1 MiB a second: a 5 MiB part takes about 5 s. */
  private static final long LINK_BYTES_PER_SECOND = 1024 * 1024;

  /** Three parts: two of S3's smallest size, and the rest. */
  private static final int ARTIFACT_BYTES = 2 * S3ArtifactStore.MIN_PART_SIZE + 1024 * 1024;

  private final S3Server server = S3Server.get();
  private final S3Client admin = server.client();
  private final String bucket = server.newBucket(admin);

  @RegisterExtension final LedgerFixtures fixtures = LedgerFixtures.fresh(LEASE);

  private final OperationsLedger ledger = fixtures.ledger();
  private final AtomicInteger attempts = new AtomicInteger();
  private TestWorkflowEnvironment temporal;
  private ThrottledLink link;
  private HttpServer genace;

  /** Delivers once, as the generation workflow does, with a short heartbeat timeout. */
  @WorkflowInterface
  public interface DeliverOnly {
    @WorkflowMethod
    DeliveryResult deliver(String operationId);
  }

  public static final class DeliverOnlyImpl implements DeliverOnly {
    @Override
    public DeliveryResult deliver(String operationId) {
      return Workflow.newActivityStub(
              DeliveryActivities.class,
              ActivityOptions.newBuilder()
                  .setTaskQueue(QUEUE)
                  .setStartToCloseTimeout(Duration.ofMinutes(2))
                  .setHeartbeatTimeout(HEARTBEAT_TIMEOUT)
                  .setRetryOptions(
                      RetryOptions.newBuilder()
                          .setInitialInterval(Duration.ofMillis(100))
                          .setMaximumAttempts(5)
                          .build())
                  .build())
          .deliver(operationId);
    }
  }

  @BeforeEach
  void start() throws Exception {
    URI s3 = server.endpoint();
    link =
        ThrottledLink.throttled(
            new InetSocketAddress(s3.getHost(), s3.getPort()), LINK_BYTES_PER_SECOND);
    genace = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    genace.start();
    temporal =
        TestWorkflowEnvironment.newInstance(
            TestEnvironmentOptions.newBuilder().setUseTimeskipping(false).build());
  }

  @AfterEach
  void stop() {
    temporal.close();
    genace.stop(0);
    link.close();
    admin.close();
  }

  @Test
  void an_upload_slower_than_the_lease_and_the_heartbeat_timeout_is_delivered_by_one_attempt()
      throws Exception {
    byte[] bytes = Artifacts.random(ARTIFACT_BYTES, 40);
    String sha256 = Artifacts.sha256(bytes);
    JobOutput output = new JobOutput(servedAtOnce(bytes), "video/mp4", bytes.length, sha256);
    ReadyToDeliver.acceptedAndSucceeded(
        ledger,
        "op-upload",
        "video-v1",
        new JobSnapshot("gen_upload", RemoteStatus.SUCCEEDED, List.of(output), null));
    Worker worker = temporal.newWorker(QUEUE);
    worker.registerWorkflowImplementationTypes(DeliverOnlyImpl.class);
    worker.registerActivitiesImplementations(new CountingAttempts(deliveryThroughTheLink()));
    temporal.start();

    DeliveryResult result =
        temporal
            .getWorkflowClient()
            .newWorkflowStub(
                DeliverOnly.class,
                WorkflowOptions.newBuilder()
                    .setTaskQueue(QUEUE)
                    .setWorkflowId("deliver-op-upload")
                    .build())
            .deliver("op-upload");

    assertThat(attempts).hasValue(1);
    assertThat(result.copied()).isEqualTo(1);
    assertThat(ledger.get("op-upload").phase()).isEqualTo(Phase.DELIVERED);
    // S3Proxy's file system lists each folder of a key as an empty object of its own.
    List<String> objects =
        admin.listObjectsV2(b -> b.bucket(bucket)).contents().stream()
            .map(S3Object::key)
            .filter(key -> !key.endsWith("/"))
            .toList();
    String key = PREFIX + "/" + result.artifacts().get(0).key();
    assertThat(objects).containsExactly(key);
    byte[] stored = admin.getObjectAsBytes(b -> b.bucket(bucket).key(key)).asByteArray();
    assertThat(Artifacts.sha256(stored)).isEqualTo(sha256);
  }

  /** The production delivery and S3 store, whose client reaches S3 through the slow link. */
  private DeliveryActivitiesImpl deliveryThroughTheLink() {
    Map<String, String> env = new HashMap<>(server.environment());
    env.put("AWS_ENDPOINT_URL", "http://127.0.0.1:" + link.port());
    ArtifactStore store =
        new S3ArtifactStore(
            ArtifactStores.s3Client(env), bucket, PREFIX, S3ArtifactStore.MIN_PART_SIZE);
    return new DeliveryActivitiesImpl(
        ledger,
        new HttpGenaceClient(GenaceClientConfig.of(URI.create("http://127.0.0.1:1"), "sk-test")),
        store,
        LedgerFixtures.WORKER,
        Clock.systemUTC());
  }

  /** Genace's output, served as fast as the loopback goes: only the upload is slow. */
  private String servedAtOnce(byte[] bytes) {
    genace.createContext(
        "/output",
        exchange -> {
          exchange.sendResponseHeaders(200, bytes.length);
          try (var body = exchange.getResponseBody()) {
            body.write(bytes);
          }
        });
    return "http://127.0.0.1:" + genace.getAddress().getPort() + "/output";
  }

  /** Counts the attempts Temporal starts. */
  private final class CountingAttempts implements DeliveryActivities {
    private final DeliveryActivities delivery;

    CountingAttempts(DeliveryActivities delivery) {
      this.delivery = delivery;
    }

    @Override
    public DeliveryResult deliver(String operationId) {
      attempts.incrementAndGet();
      return delivery.deliver(operationId);
    }
  }
}
