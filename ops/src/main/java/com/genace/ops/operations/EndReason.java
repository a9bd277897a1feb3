package com.genace.ops.operations;

import com.fasterxml.jackson.databind.JsonNode;
import com.genace.activities.ledger.OperationRow;
import com.genace.activities.ledger.TransitionRow;
import com.genace.client.model.Phase;
import java.util.List;
import java.util.Optional;

/**
 * Why an operation ended (or why it waits in review after its workflow closed), in one line, from
 * its row and history: who cancelled it and why, who abandoned its review, what Genace said.
 */
final class EndReason {

  private EndReason() {}

  /** Empty while the operation runs normally. */
  static Optional<String> of(OperationRow row, List<TransitionRow> history) {
    if (!row.phase().isTerminal()) {
      return row.phase() == Phase.IN_REVIEW ? closedWorkflow(history) : Optional.empty();
    }
    String why =
        lastInto(history, row.phase().wire())
            .map(
                t ->
                    switch (t.event()) {
                      case "cancelled" -> cancelled(t);
                      case "review_resolved" ->
                          "review resolved "
                              + row.reviewResolution().orElse("?")
                              + " by "
                              + row.reviewResolvedBy().orElse("?")
                              + row.reviewNote().map(n -> ": " + n).orElse("");
                      default ->
                          row.phase().wire() + row.failureReason().map(f -> ": " + f).orElse("");
                    })
            .orElse(row.phase().wire() + row.failureReason().map(f -> ": " + f).orElse(""));
    String late =
        history.stream()
            .filter(t -> t.event().equals("cancel_requested"))
            .reduce((first, second) -> second)
            .map(t -> "; a cancel came after the end (" + requester(t) + ")")
            .orElse("");
    return Optional.of(why + late);
  }

  private static String cancelled(TransitionRow t) {
    return requester(t) + " from phase " + t.fromPhase().orElse("?");
  }

  private static String requester(TransitionRow t) {
    JsonNode details = OperationJson.parse(t.detailsJson());
    return "cancelled by "
        + details.path("requested_by").asText("?")
        + ": "
        + details.path("reason").asText("?");
  }

  private static Optional<String> closedWorkflow(List<TransitionRow> history) {
    return history.stream()
        .filter(t -> t.accepted() && t.event().equals("workflow_closed"))
        .reduce((first, second) -> second)
        .map(
            t -> {
              JsonNode details = OperationJson.parse(t.detailsJson());
              return "its workflow closed ("
                  + details.path("close_status").asText("?")
                  + ") while "
                  + details.path("phase_before").asText(t.fromPhase().orElse("?"))
                  + "; swept into review";
            });
  }

  private static Optional<TransitionRow> lastInto(List<TransitionRow> history, String phase) {
    return history.stream()
        .filter(t -> t.accepted() && t.toPhase().map(phase::equals).orElse(false))
        .reduce((first, second) -> second);
  }
}
