package com.genace.activities.registration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.genace.activities.ledger.OperationsLedger;
import com.genace.activities.ledger.TransitionRow;
import com.genace.activities.testing.LedgerFixtures;
import com.genace.client.GenerationRequest;
import com.genace.client.model.Phase;
import com.genace.workflows.model.FailureTypes;
import io.temporal.failure.ApplicationFailure;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Registering an operation id the ledger holds already: the same request joins it, another one (say
 * a reused id whose workflow history is gone while its row is kept) is refused, not adopted.
 */
class RegistrationTest {

  @RegisterExtension final LedgerFixtures fixtures = LedgerFixtures.fresh();

  private final OperationsLedger ledger = fixtures.ledger();

  @BeforeEach
  void a_registered_operation() {
    Registration.register(
        ledger, new GenerationRequest("op-1", "image-v1", "{\"prompt\":\"fox\",\"n\":1}"));
  }

  @Test
  void the_same_request_registered_again_changes_nothing() {
    // The input compared as a JSON value: key order and white space do not matter.
    Registration.register(
        ledger, new GenerationRequest("op-1", "image-v1", "{ \"n\": 1, \"prompt\": \"fox\" }"));

    assertThat(ledger.get("op-1").phase()).isEqualTo(Phase.PENDING);
    assertThat(ledger.history("op-1")).extracting(TransitionRow::event).containsExactly("created");
  }

  @Test
  void another_request_under_the_same_id_is_refused_naming_what_differs() {
    GenerationRequest other =
        new GenerationRequest("op-1", "video-v2", "{\"prompt\":\"owl\"}", null, "shop-b");

    assertThatThrownBy(() -> Registration.register(ledger, other))
        .isInstanceOfSatisfying(
            ApplicationFailure.class,
            failure -> {
              assertThat(failure.getType()).isEqualTo(FailureTypes.OPERATION_CONFLICT);
              assertThat(failure.isNonRetryable()).isTrue();
              assertThat(failure.getOriginalMessage())
                  .contains("operation op-1 was started with another request")
                  .contains("model image-v1 was started, not video-v2")
                  .contains("account default was started, not shop-b")
                  .contains("the input differs");
            });
    assertThat(ledger.get("op-1").model()).isEqualTo("image-v1");
    assertThat(ledger.history("op-1")).extracting(TransitionRow::event).containsExactly("created");
  }
}
