package com.genace.ops.demo;

import static org.assertj.core.api.Assertions.assertThat;

import com.genace.activities.genace.CreateOutcome;
import com.genace.client.model.ReviewReason;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/** The demo tells a review's cause from the typed outcome of the last POST, never its text. */
class DemoOperatorTest {

  @Test
  void an_answered_post_names_its_status() {
    assertThat(
            DemoOperator.explain(
                ReviewReason.POST_OUTCOME_UNKNOWN,
                Optional.of(new CreateOutcome.Unknown("connection reset", OptionalInt.of(503)))))
        .isEqualTo("POST answered 503, outcome unknown");
  }

  @Test
  void a_post_without_an_answer_lost_its_response_whatever_its_text() {
    assertThat(
            DemoOperator.explain(
                ReviewReason.POST_OUTCOME_UNKNOWN,
                Optional.of(new CreateOutcome.Unknown("HTTP 503 unavailable"))))
        .isEqualTo("POST response lost");
  }

  @Test
  void an_unseen_post_has_an_unknown_outcome_and_other_reasons_read_as_words() {
    assertThat(DemoOperator.explain(ReviewReason.POST_OUTCOME_UNKNOWN, Optional.empty()))
        .isEqualTo("POST outcome unknown");
    assertThat(
            DemoOperator.explain(
                ReviewReason.REMOTE_JOB_NOT_FOUND,
                Optional.of(new CreateOutcome.Unknown("x", OptionalInt.of(503)))))
        .isEqualTo("remote job not found");
  }
}
