package com.genace.worker;

import static com.genace.worker.support.GenerationHarness.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.genace.activities.testing.DatabaseExtension;
import com.genace.client.DeliveredArtifact;
import com.genace.client.GenerationClient;
import com.genace.client.GenerationRequest;
import com.genace.client.OperationConflictException;
import com.genace.client.OperationNotFoundException;
import com.genace.client.OperationResult;
import com.genace.client.OperationTimeoutException;
import com.genace.client.ResolutionRefusedException;
import com.genace.client.model.Phase;
import com.genace.client.model.ReviewReason;
import com.genace.client.review.ReviewResolution;
import com.genace.worker.support.GenerationHarness;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** What an application sees through {@link GenerationClient}: typed answers for every case. */
@ExtendWith(DatabaseExtension.class)
class GenerationClientTest {

  @TempDir Path artifacts;
  private GenerationHarness harness;

  @BeforeEach
  void start() {
    harness = new GenerationHarness(artifacts);
  }

  @AfterEach
  void stop() {
    harness.close();
  }

  @Test
  void an_unknown_operation_is_a_typed_not_found_for_every_method() {
    ReviewResolution abandon = new ReviewResolution("abandon", null, "x", "alice");

    assertThatThrownBy(() -> harness.client.describe("never-started"))
        .isInstanceOf(OperationNotFoundException.class)
        .hasMessage("no operation never-started was started");
    assertThatThrownBy(() -> harness.client.resolve("never-started", abandon))
        .isInstanceOf(OperationNotFoundException.class);
    assertThatThrownBy(() -> harness.client.signalResolution("never-started", abandon))
        .isInstanceOf(OperationNotFoundException.class);
    assertThatThrownBy(() -> harness.client.awaitResult("never-started", Duration.ofSeconds(1)))
        .isInstanceOf(OperationNotFoundException.class);
  }

  @Test
  void waiting_on_an_operation_in_review_says_that_it_needs_an_operator() throws Exception {
    harness.simulator.setFaults(harness.simulator.faults().withLosePostResponseNext(1));
    harness.client.start(request("op-review"));
    harness.awaitPhase("op-review", Phase.IN_REVIEW);

    GenerationClient.Outcome outcome =
        harness.client.awaitEndOrReview("op-review", Duration.ofMinutes(1));
    assertThat(outcome).isInstanceOf(GenerationClient.Outcome.NeedsOperator.class);
    assertThat(((GenerationClient.Outcome.NeedsOperator) outcome).view().review().reason())
        .isEqualTo(ReviewReason.POST_OUTCOME_UNKNOWN);

    assertThatThrownBy(() -> harness.client.awaitResult("op-review", Duration.ofSeconds(2)))
        .isInstanceOfSatisfying(
            OperationTimeoutException.class,
            timeout -> assertThat(timeout.view().phase()).isEqualTo(Phase.IN_REVIEW))
        .hasMessageContaining("is in review (post_outcome_unknown)")
        .hasMessageContaining("./genace ops resolve op-review");
  }

  @Test
  void an_ended_operation_refuses_resolutions_as_ended_and_await_returns_its_result()
      throws Exception {
    harness.client.start(request("op-ended"));

    GenerationClient.Outcome outcome =
        harness.client.awaitEndOrReview("op-ended", Duration.ofMinutes(1));

    assertThat(outcome)
        .isInstanceOfSatisfying(
            GenerationClient.Outcome.Ended.class,
            ended -> assertThat(ended.result().phase()).isEqualTo(Phase.DELIVERED));
    assertThatThrownBy(
            () ->
                harness.client.resolve(
                    "op-ended", new ReviewResolution("abandon", null, "late", "alice")))
        .isInstanceOf(ResolutionRefusedException.class)
        .hasMessageContaining("operation op-ended has ended");
  }

  @Test
  void the_result_and_describe_carry_where_each_delivered_artifact_is() throws Exception {
    harness.client.start(request("op-where"));

    OperationResult result = harness.client.awaitResult("op-where", Duration.ofMinutes(1));

    assertThat(result.phase()).isEqualTo(Phase.DELIVERED);
    assertThat(result.artifacts()).isNotEmpty();
    for (DeliveredArtifact artifact : result.artifacts()) {
      assertThat(artifact.contentType()).isEqualTo("image/png");
      assertThat(artifact.key()).startsWith("generations/op-where/").endsWith(".png");
      assertThat(artifact.sha256()).matches("[0-9a-f]{64}");
      Path stored = Path.of(URI.create(artifact.uri()));
      assertThat(stored).startsWith(artifacts).hasSize(artifact.bytes());
      assertThat(sha256(Files.readAllBytes(stored))).isEqualTo(artifact.sha256());
    }
    assertThat(harness.client.describe("op-where").artifacts()).isEqualTo(result.artifacts());
  }

  @Test
  void reusing_an_id_for_another_request_is_refused_naming_what_differs() throws Exception {
    harness.client.start(
        new GenerationRequest("op-idem", "image-v1", "{\"prompt\":\"A\",\"n\":1}", null, "acme"));

    GenerationClient.Started joined =
        harness.client.start(
            new GenerationRequest(
                "op-idem", "image-v1", "{ \"n\": 1, \"prompt\": \"A\" }", 30, "acme"));
    assertThatThrownBy(
            () ->
                harness.client.start(
                    new GenerationRequest("op-idem", "video-v1", "{\"prompt\":\"B\"}", null, null)))
        .isInstanceOfSatisfying(
            OperationConflictException.class,
            conflict ->
                assertThat(conflict.differences())
                    .containsExactly(
                        "model image-v1 was started, not video-v1",
                        "account acme was started, not default",
                        "the input differs"));

    assertThat(joined.alreadyExisted()).isTrue();
    assertThat(harness.client.awaitResult("op-idem", Duration.ofMinutes(1)).phase())
        .isEqualTo(Phase.DELIVERED);
    assertThat(harness.postsFor("op-idem")).isEqualTo(1);
  }

  private static String sha256(byte[] bytes) throws Exception {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
  }
}
