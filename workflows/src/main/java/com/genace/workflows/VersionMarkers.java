package com.genace.workflows;

import io.temporal.workflow.Workflow;

/**
 * The one place a change to what a running workflow does is declared: each change id for {@link
 * Workflow#getVersion}, with a method that asks it at the point of the change. Those of {@link
 * #askAll} are asked at the start of every run, so that their marker sits at the same place in
 * every new history; asked again later, {@code getVersion} answers the same without a new command.
 * A history recorded before a change has no marker for it and replays on {@link
 * Workflow#DEFAULT_VERSION}, the code as it was.
 *
 * <p>The rule (docs/workflow-versions.md): a change to workflow code that running workflows would
 * replay differently ships with its change id here, asked where the change is; the released
 * histories ({@code release/<version>/}) keep replaying. A branch is deleted only once the releases
 * whose runs take it are retired (no open run), and its removal names that release.
 */
final class VersionMarkers {

  /**
   * 0.2.0: {@code not_submitted} is refused when the evidence gathered again could not look (the
   * search failed, or a job id seen could not be read) and shows no job. {@link
   * Workflow#DEFAULT_VERSION} (0.1.0) applied it, recording the resolution and dispatching again;
   * saved history {@code review-not-submitted-accepted-while-unchecked.json}. Asked only when such
   * evidence comes back, so that other histories carry no marker.
   */
  static final String CHECKED_RESOLUTIONS = "checked-resolutions";

  static final int CHECKED_RESOLUTIONS_REFUSE = 1;

  static int checkedResolutions() {
    return Workflow.getVersion(
        CHECKED_RESOLUTIONS, Workflow.DEFAULT_VERSION, CHECKED_RESOLUTIONS_REFUSE);
  }

  /**
   * Version 1: the {@code cancel} update writes the accepted request to the ledger row (an activity
   * in the update handler) and the cancel bookkeeping writes it there too when no update did (a
   * Temporal cancel request, a request accepted before the operation was registered); see {@link
   * Cancellation}. 0.1.0 held the request in the run's memory only.
   */
  static final String CANCEL_IN_LEDGER = "cancel-in-ledger";

  /**
   * Version 1: a cancelled operation's review wait continues as new like any other (the cancel is
   * carried), and the review reminder's due time is carried across runs; see {@link RunChain} and
   * {@link ReviewStep}. 0.1.0 never continued once a cancel was requested, and started each run's
   * reminder afresh.
   */
  static final String BOUNDED_WAITS = "bounded-waits";

  /**
   * Version 1: the waits for an observation or a delivery activity continue as new once the run's
   * history is long (signals arriving meanwhile), the next run starting the activity again; see
   * {@link RunChain#awaitOrContinue}. 0.1.0 waited in the same run whatever its length. Asked only
   * when such a wait finds the history long, so that other histories carry no marker.
   */
  static final String BOUNDED_ACTIVITY_WAITS = "bounded-activity-waits";

  /**
   * Version 1: Genace's acceptance of the POST sets the search attribute {@code GenaceCredits} (the
   * estimated credits the ledger committed) in the same upsert as the {@code observing} phase; see
   * {@link OperationState#showCredits}. {@link Workflow#DEFAULT_VERSION} (0.1.0, and runs whose
   * dispatch reported no credits) upserts the phase and the remote job alone. Asked only when an
   * accepted dispatch reports its credits, so that other histories carry no marker; saved history
   * {@code delivered-with-credits.json}.
   */
  static final String CREDITS_ATTRIBUTE = "credits-attribute";

  /**
   * Version 1 (0.2.0): a start input over a bound ({@link
   * com.genace.client.GenerationRequest#boundsProblem}: an operation id that breaks the identifier
   * rule or is too long for an object key, an input over the ceiling) fails the run before anything
   * is registered. {@link Workflow#DEFAULT_VERSION} (0.1.0) ran it. Asked only for a request over a
   * bound, so that other histories carry no marker.
   */
  static final String INPUT_BOUNDS = "input-bounds";

  static boolean inputBounds() {
    return Workflow.getVersion(INPUT_BOUNDS, Workflow.DEFAULT_VERSION, 1) >= 1;
  }

  /**
   * Version 1 (0.2.0): a resolution signal may carry {@code approvals} (signed approvals, checked
   * by the review activity). {@link Workflow#DEFAULT_VERSION} (0.1.0) refused the unknown field.
   * Asked only for a signal that carries the field, so that other histories carry no marker.
   */
  static final String SIGNED_APPROVALS = "signed-approvals";

  static boolean signedApprovals() {
    return Workflow.getVersion(SIGNED_APPROVALS, Workflow.DEFAULT_VERSION, 1) >= 1;
  }

  /**
   * Version 1 (0.2.0): a resolution signal under {@code resolvedBy: reconciler} is refused (the
   * name is the product's own). {@link Workflow#DEFAULT_VERSION} (0.1.0) accepted it. Asked only
   * for such a signal.
   */
  static final String RESERVED_RECONCILER = "reserved-reconciler";

  static boolean reservedReconciler() {
    return Workflow.getVersion(RESERVED_RECONCILER, Workflow.DEFAULT_VERSION, 1) >= 1;
  }

  private VersionMarkers() {}

  static boolean creditsAttribute() {
    return Workflow.getVersion(CREDITS_ATTRIBUTE, Workflow.DEFAULT_VERSION, 1) >= 1;
  }

  /** Asks the change ids that are asked at the start of every run. */
  static void askAll() {
    cancelInLedger();
    boundedWaits();
  }

  static boolean cancelInLedger() {
    return Workflow.getVersion(CANCEL_IN_LEDGER, Workflow.DEFAULT_VERSION, 1) >= 1;
  }

  static boolean boundedActivityWaits() {
    return Workflow.getVersion(BOUNDED_ACTIVITY_WAITS, Workflow.DEFAULT_VERSION, 1) >= 1;
  }

  static boolean boundedWaits() {
    return Workflow.getVersion(BOUNDED_WAITS, Workflow.DEFAULT_VERSION, 1) >= 1;
  }
}
