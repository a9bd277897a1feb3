package com.genace.workflows.observation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.genace.client.model.ReviewReason;
import com.genace.workflows.model.RemoteStatus;
import io.temporal.common.converter.DataConverter;
import io.temporal.common.converter.DefaultDataConverter;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The payload of observation's end, as Temporal carries it. */
class ObservationResultTest {

  private static final DataConverter CONVERTER = DefaultDataConverter.STANDARD_INSTANCE;

  private static ObservationResult read(String json) {
    var payload =
        io.temporal.api.common.v1.Payload.newBuilder()
            .putMetadata("encoding", com.google.protobuf.ByteString.copyFromUtf8("json/plain"))
            .setData(com.google.protobuf.ByteString.copyFrom(json, StandardCharsets.UTF_8))
            .build();
    return CONVERTER.fromPayload(payload, ObservationResult.class, ObservationResult.class);
  }

  @Test
  void a_result_survives_the_round_trip_through_temporal() {
    for (ObservationResult result :
        new ObservationResult[] {
          ObservationResult.terminal(RemoteStatus.CANCELED, "gen_1", "stopped"),
          ObservationResult.inReview(ReviewReason.REMOTE_JOB_NOT_FOUND, "gen_1", "404")
        }) {
      var payload = CONVERTER.toPayload(result).orElseThrow();
      assertThat(CONVERTER.fromPayload(payload, ObservationResult.class, ObservationResult.class))
          .isEqualTo(result);
    }
  }

  @Test
  void the_status_reads_by_its_name_in_any_case() {
    assertThat(read("{\"status\":\"succeeded\",\"remoteJobId\":\"gen_1\",\"detail\":null}"))
        .isEqualTo(ObservationResult.terminal(RemoteStatus.SUCCEEDED, "gen_1", null));
    assertThat(read("{\"status\":\"FAILED\",\"remoteJobId\":\"gen_1\",\"detail\":\"x\"}"))
        .isEqualTo(ObservationResult.terminal(RemoteStatus.FAILED, "gen_1", "x"));
  }

  @Test
  void an_observation_ends_either_terminal_or_in_review() {
    assertThatThrownBy(() -> ObservationResult.terminal(RemoteStatus.RUNNING, "gen_1", null))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(
            () ->
                new ObservationResult(
                    RemoteStatus.FAILED, ReviewReason.REMOTE_JOB_NOT_FOUND, "gen_1", null))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void review_reasons_travel_by_their_wire_names() {
    for (ReviewReason reason : ReviewReason.values()) {
      assertThat(ReviewReason.parse(reason.wire())).isEqualTo(reason);
    }
    assertThat(ReviewReason.POST_OUTCOME_UNKNOWN.wire()).isEqualTo("post_outcome_unknown");
    assertThatThrownBy(() -> ReviewReason.parse("bored"))
        .hasMessageContaining("unknown review reason 'bored'");
  }
}
