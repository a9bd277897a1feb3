package com.genace.worker;

import static com.genace.worker.support.GenerationHarness.request;
import static org.assertj.core.api.Assertions.assertThat;

import com.genace.activities.delivery.ArtifactContent;
import com.genace.activities.delivery.ArtifactStore;
import com.genace.activities.delivery.LocalDirectoryArtifactStore;
import com.genace.activities.ledger.TransitionRow;
import com.genace.activities.testing.DatabaseExtension;
import com.genace.client.CancelRequest;
import com.genace.client.OperationResult;
import com.genace.client.model.Phase;
import com.genace.worker.support.ForwardingArtifactStore;
import com.genace.worker.support.GenerationHarness;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** A cancel that arrives while the artifacts are being copied lets the copy finish and record. */
@ExtendWith(DatabaseExtension.class)
class CancelDuringDeliveryTest {

  @TempDir Path artifacts;
  private final CountDownLatch copying = new CountDownLatch(1);
  private final CountDownLatch release = new CountDownLatch(1);
  private GenerationHarness harness;

  /** Holds every copy until the test releases it. */
  private final class HeldStore extends ForwardingArtifactStore {

    HeldStore(ArtifactStore inner) {
      super(inner);
    }

    @Override
    public void put(String key, ArtifactContent content) {
      copying.countDown();
      try {
        release.await(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      super.put(key, content);
    }
  }

  @BeforeEach
  void start() {
    harness =
        new GenerationHarness(
            artifacts,
            GenerationHarness.simulator(),
            GenerationHarness.API_KEY,
            new HeldStore(new LocalDirectoryArtifactStore(artifacts)),
            Duration.ofSeconds(2));
  }

  @AfterEach
  void stop() {
    release.countDown();
    harness.close();
  }

  @Test
  void a_delivery_under_way_finishes_and_the_cancel_is_kept_in_the_history() throws Exception {
    harness.client.start(request("op-delivering"));
    assertThat(copying.await(30, TimeUnit.SECONDS)).isTrue();

    harness.client.cancel("op-delivering", new CancelRequest("order cancelled", "shop"));
    release.countDown();
    OperationResult result = harness.client.awaitResult("op-delivering", Duration.ofMinutes(1));

    assertThat(result.phase()).isEqualTo(Phase.DELIVERED);
    assertThat(result.detail()).contains("cancelled by shop: order cancelled");
    harness.replayAndRecord("op-delivering", "cancel-delivering");
    assertThat(harness.row("op-delivering").deliveryManifestJson()).isPresent();
    assertThat(harness.ledger.history("op-delivering"))
        .extracting(TransitionRow::event)
        .endsWith("delivered", "cancel_requested");
    assertThat(harness.postsFor("op-delivering")).isEqualTo(1);
  }
}
