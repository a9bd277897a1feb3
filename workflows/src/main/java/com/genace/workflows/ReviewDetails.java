package com.genace.workflows;

import com.genace.client.GenerationWorkflow;
import com.genace.client.review.EvidenceJob;
import com.genace.client.review.ReviewCase;
import java.util.List;

/**
 * What the Web UI's current details say about an open review, in Markdown: the reason, the
 * evidence, and what an operator sends to resolve it — the signal's name, a payload to paste for
 * each decision (the job pre-filled when the evidence names exactly one), and the equivalent
 * command.
 */
final class ReviewDetails {

  private ReviewDetails() {}

  static String of(String operationId, ReviewCase review) {
    StringBuilder text = new StringBuilder();
    text.append("**Reason:** `")
        .append(review.reason().wire())
        .append("` — ")
        .append(review.detail());
    if (review.evidence() != null) {
      text.append("\n\n**Evidence:** ").append(review.evidence().summary());
    }
    List<EvidenceJob> candidates =
        review.evidence() == null ? List.of() : review.evidence().candidates();
    String jobId = candidates.size() == 1 ? candidates.get(0).id() : "<job id>";
    text.append("\n\n### Resolve with the signal `")
        .append(GenerationWorkflow.RESOLUTION_SIGNAL)
        .append(
            "`\n\nMore Actions → Send a Signal, then paste one of these (fill in the reason and")
        .append(" your name).\n\nGenace holds the render:\n\n")
        .append(payload("\"decision\":\"found_remote_job\",\"remoteJobId\":\"" + jobId + "\""))
        .append("\nNo POST reached Genace (checked against the evidence again when applied):\n\n")
        .append(payload("\"decision\":\"not_submitted\""))
        .append("\nGive the operation up:\n\n")
        .append(payload("\"decision\":\"abandon\""))
        .append("\nOr from a shell: `./genace ops resolve ")
        .append(operationId)
        .append(" --found-remote-job ")
        .append(jobId)
        .append(" --reason \"<why>\"` (or `--not-submitted`, `--abandon`).");
    return text.toString();
  }

  private static String payload(String decision) {
    return "```json\n{" + decision + ",\"reason\":\"<why>\",\"resolvedBy\":\"<your name>\"}\n```\n";
  }
}
