package com.genace.worker.telemetry;

import static org.assertj.core.api.Assertions.assertThat;

import com.genace.client.GenerationRequest;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ActivityLogContextTest {

  @Test
  void the_operation_id_is_the_first_argument_or_the_id_of_the_request_given_first() {
    assertThat(ActivityLogContext.operationId(new Object[] {"op-1", "reason"})).contains("op-1");
    assertThat(
            ActivityLogContext.operationId(
                new Object[] {new GenerationRequest("op-2", "image-v1", "{}")}))
        .contains("op-2");
  }

  @Test
  void an_activity_without_such_an_argument_has_no_operation_id() {
    assertThat(ActivityLogContext.operationId(new Object[0])).isEqualTo(Optional.empty());
    assertThat(ActivityLogContext.operationId(new Object[] {42})).isEqualTo(Optional.empty());
  }
}
