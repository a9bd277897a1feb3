package com.genace.workflows;

import com.genace.client.CarriedState;
import com.genace.client.DeliveredArtifact;
import com.genace.client.GenerationSearchAttributes;
import com.genace.client.OperationResult;
import com.genace.client.OperationView;
import com.genace.client.Step;
import com.genace.client.model.Phase;
import com.genace.client.review.ReviewCase;
import com.genace.workflows.model.RemoteStatus;
import io.temporal.common.SearchAttributeKey;
import io.temporal.common.SearchAttributeUpdate;
import io.temporal.workflow.Workflow;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * The operation as the workflow knows it, and the one place it is shown: a phase change upserts the
 * search attributes (only those whose value changes) and rewrites the Web UI's current details,
 * {@link #view} is what {@code describe} answers, {@link #finish} decides the result, and {@link
 * #carry} / {@link #resume} hand it to a continued run.
 */
final class OperationState {

  /** How many refused resolutions the Web UI's current details repeat. */
  static final int REFUSALS_SHOWN = 3;

  private static final OperationLog outcomes = OperationLog.ofWorkflow();

  private String operationId;
  private Phase phase = Phase.PENDING;
  private String phaseDetails = "";
  private String remoteJobId;
  private RemoteStatus lastRemoteStatus;
  private int dispatchAttempts;

  /** The credits committed with the acceptance, as the dispatch reported them; else null. */
  private Long credits;

  /**
   * Whether the next phase's upsert sets {@code GenaceCredits} (from {@link
   * VersionMarkers#CREDITS_ATTRIBUTE}); a continued run has it among the attributes it came with.
   */
  private boolean showCredits;

  private ReviewCase review;
  private final Set<String> jobIdsSeen = new LinkedHashSet<>();
  private final List<String> rejectedResolutions = new ArrayList<>();

  /** Refused resolutions over all runs; the list above keeps the latest. */
  private int refusalsInAll;

  /**
   * Whether the list of refusals keeps only the latest {@value CarriedState#REFUSALS_CARRIED} (from
   * {@link VersionMarkers#BOUNDED_WAITS}): a flood of refused signals costs no memory.
   */
  private boolean keepLatestRefusals;

  /** The latest resolution refused since the current review opened, shown first; else null. */
  private String refusedInReview;

  private List<DeliveredArtifact> artifacts = List.of();
  private OperationResult result;

  void begin(String id) {
    operationId = id;
  }

  /**
   * A continued run takes over what the previous run carried; the search attributes came with the
   * run, so nothing is upserted.
   */
  void resume(CarriedState carried) {
    dispatchAttempts = carried.dispatchAttempts();
    credits = carried.credits();
    remoteJobId = carried.remoteJobId();
    review = carried.review();
    jobIdsSeen.addAll(carried.jobIdsSeen());
    rejectedResolutions.addAll(carried.refusals());
    refusalsInAll = Math.max(carried.refusalsInAll(), carried.refusals().size());
    refusedInReview = carried.refusedInReview();
    phase =
        switch (carried.step()) {
          case REVIEW -> Phase.IN_REVIEW;
          case OBSERVE -> Phase.OBSERVING;
          case DELIVER -> Phase.DELIVERING;
          default -> Phase.PENDING;
        };
  }

  /** From {@link VersionMarkers#BOUNDED_WAITS}: the list of refusals keeps the latest only. */
  void keepLatestRefusals() {
    keepLatestRefusals = true;
  }

  /** What the next run needs to resume at {@code step}. */
  CarriedState carry(
      Step step,
      int notSentInARow,
      int waitsInARow,
      int runs,
      com.genace.client.CancelRequest cancel,
      long nextReminderAtMillis) {
    int keptFrom = Math.max(0, rejectedResolutions.size() - CarriedState.REFUSALS_CARRIED);
    return new CarriedState(
        step,
        dispatchAttempts,
        remoteJobId,
        review,
        List.copyOf(jobIdsSeen),
        rejectedResolutions.subList(keptFrom, rejectedResolutions.size()),
        refusedInReview,
        notSentInARow,
        waitsInARow,
        runs,
        cancel,
        nextReminderAtMillis,
        refusalsInAll,
        credits);
  }

  String operationId() {
    return operationId;
  }

  Phase phase() {
    return phase;
  }

  String remoteJobId() {
    return remoteJobId;
  }

  void recordRemoteJob(String id) {
    remoteJobId = id;
  }

  /** Null (a result recorded before dispatches reported credits) leaves what is known. */
  void recordCredits(Long committed) {
    if (committed != null) {
      credits = committed;
    }
  }

  /** From {@link VersionMarkers#CREDITS_ATTRIBUTE}: the next upsert carries the credits. */
  void showCredits() {
    showCredits = true;
  }

  /** A dispatch that a closed gate or an exhausted allowance turned away is not an attempt. */
  void countDispatchAttempt() {
    dispatchAttempts++;
  }

  int dispatchAttempts() {
    return dispatchAttempts;
  }

  void recordRemoteStatus(RemoteStatus status) {
    lastRemoteStatus = status;
  }

  ReviewCase review() {
    return review;
  }

  /** A review opens: what was refused in an earlier one is no longer shown first. */
  void openReview(ReviewCase opened) {
    refusedInReview = null;
    recordReview(opened);
  }

  void recordReview(ReviewCase current) {
    review = current;
    if (current.evidenceRemoteJobId() != null) {
      jobIdsSeen.add(current.evidenceRemoteJobId());
    }
  }

  /** Every job id an exchange of this operation brought to a review, in the order seen. */
  List<String> jobIdsSeen() {
    return List.copyOf(jobIdsSeen);
  }

  void recordArtifacts(List<DeliveredArtifact> delivered) {
    artifacts = List.copyOf(delivered);
  }

  List<DeliveredArtifact> artifacts() {
    return artifacts;
  }

  /** Null until the operation ended. */
  OperationResult result() {
    return result;
  }

  boolean ended() {
    return result != null;
  }

  /**
   * Publishes a phase: the search attributes (an upsert command, when one changes) and the current
   * details.
   */
  void setPhase(Phase next, String details) {
    phase = next;
    List<SearchAttributeUpdate<?>> updates = new ArrayList<>();
    addIfChanged(updates, GenerationSearchAttributes.PHASE, shown(next).wire());
    addIfChanged(updates, GenerationSearchAttributes.NEEDS_REVIEW, next == Phase.IN_REVIEW);
    if (remoteJobId != null) {
      addIfChanged(updates, GenerationSearchAttributes.REMOTE_JOB_ID, remoteJobId);
    }
    if (showCredits && credits != null) {
      addIfChanged(updates, GenerationSearchAttributes.CREDITS, credits);
    }
    if (!updates.isEmpty()) {
      Workflow.upsertTypedSearchAttributes(updates.toArray(new SearchAttributeUpdate<?>[0]));
    }
    phaseDetails = details;
    showDetails();
  }

  /**
   * The phase as the search attribute shows it. The passing phases an operator does not look for
   * are shown as the one before them (a POST in flight as {@code pending}, a delivery as {@code
   * observing}), so that an ordinary operation costs two upserts (observing, then its end) instead
   * of four; the ledger and describe have the exact phase.
   */
  private Phase shown(Phase next) {
    return switch (next) {
      case SUBMITTING -> Phase.PENDING;
      case DELIVERING -> Phase.OBSERVING;
      default -> next;
    };
  }

  private <T> void addIfChanged(
      List<SearchAttributeUpdate<?>> updates, SearchAttributeKey<T> key, T value) {
    if (!Objects.equals(Workflow.getTypedSearchAttributes().get(key), value)) {
      updates.add(key.valueSet(value));
    }
  }

  /** Says what the current phase waits for without publishing the phase again (no upsert). */
  void setPhaseDetails(String details) {
    phaseDetails = details;
    showDetails();
  }

  /** Lists a refused resolution where describe and the Web UI show it. */
  void addRefusal(String refusal) {
    rejectedResolutions.add(refusal);
    refusalsInAll++;
    if (keepLatestRefusals && rejectedResolutions.size() > CarriedState.REFUSALS_CARRIED) {
      rejectedResolutions.remove(0);
    }
    if (phase == Phase.IN_REVIEW) {
      refusedInReview = refusal;
    }
  }

  /**
   * The Web UI's current details, in Markdown: the phase and what it waits for; in review, the
   * latest refusal first, then the reason, the evidence and what to send ({@link ReviewDetails});
   * the remote job and the latest refused resolutions. Metadata only, no command: refreshing it
   * changes no history.
   */
  void showDetails() {
    StringBuilder details = new StringBuilder("**" + phase.wire() + "** — " + phaseDetails);
    boolean inReview = phase == Phase.IN_REVIEW && review != null;
    if (inReview && refusedInReview != null) {
      details.append("\n\n> **The latest resolution was refused.** ").append(refusedInReview);
    }
    if (remoteJobId != null) {
      details.append("\n\n**Remote job:** `").append(remoteJobId).append('`');
    }
    if (inReview) {
      details.append("\n\n").append(ReviewDetails.of(operationId, review));
    }
    int shown = Math.min(REFUSALS_SHOWN, rejectedResolutions.size());
    if (shown > 0) {
      details.append(
          keepLatestRefusals
              ? "\n\n**Refused resolutions** (" + refusalsInAll + " in all, latest last):"
              : "\n\n**Refused resolutions** (latest last):");
      rejectedResolutions
          .subList(rejectedResolutions.size() - shown, rejectedResolutions.size())
          .forEach(refusal -> details.append("\n- ").append(refusal));
    }
    Workflow.setCurrentDetails(details.toString());
  }

  /** Ends the operation in a terminal phase; the course has no step after it. */
  Step finish(Phase terminal, String detail) {
    setPhase(terminal, detail);
    result = new OperationResult(operationId, terminal, remoteJobId, detail, artifacts);
    if (terminal == Phase.DELIVERED) {
      outcomes.info(operationId, remoteJobId, "operation {} delivered: {}", operationId, detail);
    } else {
      outcomes.warn(
          operationId, remoteJobId, "operation {} {}: {}", operationId, terminal.wire(), detail);
    }
    return Step.DONE;
  }

  /** An operation that ended on its own while being cancelled says so in its result. */
  void addToResult(String note) {
    result =
        new OperationResult(
            operationId,
            result.phase(),
            result.remoteJobId(),
            result.detail() + " (" + note + ")",
            result.artifacts());
    setPhase(result.phase(), result.detail());
  }

  OperationView view(boolean resolvable) {
    return new OperationView(
        operationId,
        phase,
        remoteJobId,
        lastRemoteStatus == null ? null : lastRemoteStatus.wire(),
        dispatchAttempts,
        review,
        List.copyOf(rejectedResolutions),
        artifacts,
        resolvable,
        credits);
  }
}
