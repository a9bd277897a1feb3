package com.genace.activities.review;

import com.fasterxml.jackson.databind.JsonNode;
import com.genace.client.GenerationWorkflow;
import com.genace.client.review.ResolutionPayload;
import com.genace.client.review.ReviewResolution;
import io.temporal.activity.Activity;
import io.temporal.api.common.v1.Payloads;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.client.WorkflowClient;
import io.temporal.common.converter.DataConverter;
import io.temporal.common.converter.DataConverterException;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Who sent a resolution, in Temporal's words: the {@code identity} its signal or update was sent
 * under, read from the operation's history (a workflow cannot see it). The audit keeps it beside
 * the approver's key, so that a decision names both the key that signed it and the client that sent
 * it. Temporal does not authenticate the identity (a client chooses it); with an authorizer on the
 * namespace it is at least a caller the server let in.
 */
final class ResolutionCaller {

  private static final Logger log = LoggerFactory.getLogger(ResolutionCaller.class);
  private static final String SIGNAL = "resolveReconciliation";
  private static final String UPDATE = "resolve";

  private ResolutionCaller() {}

  /**
   * The identity of the latest signal or update in the current run that carried {@code resolution};
   * empty for the reconciler's own (no one sent it) or when the history cannot be read now (the
   * decision is recorded all the same, and the log says why).
   */
  static Optional<String> of(String operationId, ReviewResolution resolution) {
    String found = null;
    try {
      WorkflowClient client = Activity.getExecutionContext().getWorkflowClient();
      DataConverter converter = client.getOptions().getDataConverter();
      for (HistoryEvent event :
          client.fetchHistory(GenerationWorkflow.WORKFLOW_ID_PREFIX + operationId).getEvents()) {
        Optional<String> identity = identityIfCarrying(event, converter, resolution);
        if (identity.isPresent()) {
          found = identity.get();
        }
      }
    } catch (RuntimeException e) {
      log.warn(
          "operation {}: the caller of its resolution is not known (history not read: {})",
          operationId,
          e.getMessage());
    }
    return Optional.ofNullable(found).filter(identity -> !identity.isBlank());
  }

  private static Optional<String> identityIfCarrying(
      HistoryEvent event, DataConverter converter, ReviewResolution resolution) {
    if (event.hasWorkflowExecutionSignaledEventAttributes()) {
      var signal = event.getWorkflowExecutionSignaledEventAttributes();
      return SIGNAL.equals(signal.getSignalName())
              && resolution.equals(signalled(converter, signal.getInput()))
          ? Optional.of(signal.getIdentity())
          : Optional.empty();
    }
    if (event.hasWorkflowExecutionUpdateAcceptedEventAttributes()) {
      var request = event.getWorkflowExecutionUpdateAcceptedEventAttributes().getAcceptedRequest();
      return UPDATE.equals(request.getInput().getName())
              && resolution.equals(
                  decode(converter, request.getInput().getArgs(), ReviewResolution.class))
          ? Optional.of(request.getMeta().getIdentity())
          : Optional.empty();
    }
    return Optional.empty();
  }

  /** The signal's payload read as the workflow reads it. */
  private static ReviewResolution signalled(DataConverter converter, Payloads input) {
    JsonNode payload = decode(converter, input, JsonNode.class);
    return payload == null ? null : ResolutionPayload.parse(payload).resolution();
  }

  private static <T> T decode(DataConverter converter, Payloads payloads, Class<T> type) {
    if (payloads.getPayloadsCount() == 0) {
      return null;
    }
    try {
      return converter.fromPayloads(0, Optional.of(payloads), type, type);
    } catch (DataConverterException e) {
      return null; // another shape than a resolution: not the one looked for
    }
  }
}
