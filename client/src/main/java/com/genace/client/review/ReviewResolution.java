package com.genace.client.review;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.genace.client.GenerationWorkflow;
import com.genace.client.model.IdentifierRule;
import com.genace.client.model.ReviewDecision;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * An operator's decision, as sent by signal or update. {@code decision} is one of {@code
 * found_remote_job} (with {@code remoteJobId}), {@code not_submitted}, {@code abandon}; {@code
 * reason} says why and {@code resolvedBy} who. In the Web UI's signal form: {@code
 * {"decision":"found_remote_job","remoteJobId":"gen_123","reason":"seen in
 * dashboard","resolvedBy":"alice"}}. A decision that can spend again ({@code not_submitted})
 * carries {@code approvals}, signed by registered approvers, once any approver is registered.
 */
public record ReviewResolution(
    String decision,
    String remoteJobId,
    String reason,
    String resolvedBy,
    // Left out when empty: a payload without approvals is the one 0.1.0 workers read.
    @JsonInclude(JsonInclude.Include.NON_EMPTY) List<Approval> approvals) {

  public ReviewResolution {
    approvals = approvals == null ? List.of() : List.copyOf(approvals);
  }

  public ReviewResolution(String decision, String remoteJobId, String reason, String resolvedBy) {
    this(decision, remoteJobId, reason, resolvedBy, List.of());
  }

  /** The same decision with {@code signed} added to its approvals. */
  public ReviewResolution withApproval(Approval signed) {
    List<Approval> all = new java.util.ArrayList<>(approvals);
    all.add(signed);
    return new ReviewResolution(decision, remoteJobId, reason, resolvedBy, all);
  }

  /** An operator's explanation, not an essay: it is stored and shown in every listing. */
  public static final int MAX_REASON_LENGTH = 2000;

  /**
   * Checks the resolution on its own (not against the workflow's state).
   *
   * @return the problem, if any, in words an operator can act on
   */
  public Optional<String> problem() {
    Optional<ReviewDecision> parsed = parsedDecision();
    if (parsed.isEmpty()) {
      return Optional.of(
          "unknown decision '"
              + decision
              + "'; expected found_remote_job, not_submitted or abandon");
    }
    if (parsed.get() == ReviewDecision.FOUND_REMOTE_JOB
        && (remoteJobId == null || remoteJobId.isBlank())) {
      return Optional.of("found_remote_job needs the remote job id");
    }
    if (reason == null || reason.isBlank()) {
      return Optional.of("a reason is required");
    }
    return Optional.empty();
  }

  /**
   * Checks the resolution whole, as the workflow does before accepting it: {@link #problem()}, then
   * the job id by the ledger's identifier rule (a job id the ledger would refuse must never be
   * accepted, or recording it would fail for good), the reason's length and who resolved it.
   */
  public Optional<String> problemAsWhole() {
    Optional<String> basic = problem();
    if (basic.isPresent()) {
      return basic;
    }
    if (parsedDecision().orElseThrow() == ReviewDecision.FOUND_REMOTE_JOB) {
      Optional<String> jobId = IdentifierRule.problem(remoteJobId.trim(), "remote job id");
      if (jobId.isPresent()) {
        return jobId;
      }
    }
    if (reason.length() > MAX_REASON_LENGTH) {
      return Optional.of("the reason is longer than " + MAX_REASON_LENGTH + " characters");
    }
    if (resolvedBy != null && !resolvedBy.isBlank()) {
      return IdentifierRule.problem(resolvedBy, "resolvedBy");
    }
    return Optional.empty();
  }

  /**
   * Whether it names the product's own resolver: {@link GenerationWorkflow#RECONCILER} is reserved
   * to the reviews that settle themselves, and refused from a signal or an update.
   */
  public boolean claimsReconciler() {
    return resolvedBy != null && resolvedBy.trim().equalsIgnoreCase(GenerationWorkflow.RECONCILER);
  }

  public Optional<ReviewDecision> parsedDecision() {
    if (decision == null) {
      return Optional.empty();
    }
    String wire = decision.trim().toLowerCase(Locale.ROOT).replace('-', '_');
    for (ReviewDecision candidate : ReviewDecision.values()) {
      if (candidate.wire().equals(wire)) {
        return Optional.of(candidate);
      }
    }
    return Optional.empty();
  }

  /** Who resolved it, or {@code operator} when nobody said. */
  public String resolver() {
    return resolvedBy == null || resolvedBy.isBlank() ? "operator" : resolvedBy;
  }
}
