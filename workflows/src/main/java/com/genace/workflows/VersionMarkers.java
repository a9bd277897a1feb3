package com.genace.workflows;

import io.temporal.workflow.Workflow;

/**
 * The changes to what a running workflow does, each behind a {@link Workflow#getVersion} marker.
 * Each is asked at the same point of the operation's course as when it was introduced: a saved
 * history's markers, and where they stand among its commands, decide how it replays.
 */
final class VersionMarkers {

  /**
   * Where registration runs. Version 1 registered as a local activity (one marker instead of an
   * activity's events); it lost an operation in the network fault drill (no ledger row after the
   * faults ended), so version 2 registers with a scheduled activity again, as the default version
   * does. Version 3 registers in the first dispatch attempt (one activity and one workflow task
   * fewer per operation), falling back to the scheduled registration when that attempt never
   * started or could not register ({@link DispatchStep}); version 4 adds {@link
   * #CANCEL_QUEUED_DISPATCH}, and version 5, what new workflows get, {@link #BOUNDED_HISTORY}.
   * Versions 1 to 5 imply {@link #OBSERVE_BY_POLLING}, and versions 3 to 5 every later marker at
   * its current version: such workflows record none of them.
   */
  static final String REGISTER_LOCALLY = "register-locally";

  /** {@link #REGISTER_LOCALLY}'s version that registers in the first dispatch. */
  static final int REGISTER_IN_FIRST_DISPATCH = 3;

  /**
   * {@link #REGISTER_LOCALLY}'s version 4, what new workflows get: version 3, and besides a cancel
   * request cancels a dispatch attempt that no worker has started yet (Temporal then never hands it
   * out, so no POST can follow the cancel), and {@code not_submitted} is checked against evidence
   * gathered again when it is applied ({@link ResolutionCheck}).
   */
  static final int CANCEL_QUEUED_DISPATCH = 4;

  /**
   * {@link #REGISTER_LOCALLY}'s version 5, what new workflows get: version 4, and besides no wait
   * adds history without bound. Waits back off (dispatch waits to {@link DispatchStep#MAX_WAIT},
   * review reminders to {@link ReviewStep#MAX_REMINDER_INTERVAL}), a search attribute is upserted
   * only when its value changes ({@code GenacePhase} shows a POST in flight as {@code pending} and
   * a delivery as {@code observing}), a wait that ends early cancels its timer, and a run that has
   * grown past {@link HistoryBudget#MAX_EVENTS} continues as new from its waits, carrying its state
   * ({@link CarriedState}).
   */
  static final int BOUNDED_HISTORY = 5;

  /** Polling observation (version 1); the default version observes the long way. */
  static final String OBSERVE_BY_POLLING = "observe-by-polling";

  /**
   * Observation by the ledger's poll schedule (version 1): one activity that a worker's poll loop
   * completes, instead of one activity attempt per poll. Asked only by polling observation; its
   * default version polls by attempts, as workflows started before it did.
   */
  static final String OBSERVE_BY_SCHEDULE = "observe-by-schedule";

  /**
   * Cancellation with meaning (version 1): the operation's steps run in a scope that a cancel
   * request stops, the POST, the recording of its outcome and a delivery under way run to their end
   * regardless, and the ledger records the cancellation. Workflows started before (no marker) end
   * at once on a cancel request, as they did.
   */
  static final String CANCEL_WITH_MEANING = "cancel-with-meaning";

  /**
   * Resolutions checked whole before they are accepted (version 1): the ledger's identifier rule, a
   * named job read on Genace first, a permanent recording failure refused rather than retried; and
   * a payload of any shape answered. The default version takes them as before.
   */
  static final String CHECKED_RESOLUTIONS = "checked-resolutions";

  /** Evidence gathered when a review opens, and reviews settling themselves (version 1). */
  static final String REVIEW_EVIDENCE = "review-evidence";

  /**
   * Set by {@link #REGISTER_LOCALLY}'s version 1, 2 or 3: such workflows always observe by polling.
   */
  private boolean registeredAfterPolling;

  /** Set by {@link #REGISTER_LOCALLY}'s version 3: every later marker is at its current version. */
  private boolean current;

  /** Set by {@link #REGISTER_LOCALLY}'s version {@value #CANCEL_QUEUED_DISPATCH}. */
  private boolean cancelsQueuedDispatch;

  /** Set by {@link #REGISTER_LOCALLY}'s version {@value #BOUNDED_HISTORY}. */
  private boolean boundsHistory;

  /**
   * Asked once, before registering (a continued run asks too, and registers nothing): 1 registers
   * locally, the default and 2 schedule it, 3 to 5 register in the first dispatch.
   */
  int registration() {
    int version = Workflow.getVersion(REGISTER_LOCALLY, Workflow.DEFAULT_VERSION, BOUNDED_HISTORY);
    registeredAfterPolling = version != Workflow.DEFAULT_VERSION;
    current = version >= REGISTER_IN_FIRST_DISPATCH;
    cancelsQueuedDispatch = version >= CANCEL_QUEUED_DISPATCH;
    boundsHistory = version >= BOUNDED_HISTORY;
    return version;
  }

  /** Whether no wait adds history without bound ({@link #BOUNDED_HISTORY}). */
  boolean boundsHistory() {
    return boundsHistory;
  }

  /**
   * Whether a cancel request cancels a dispatch attempt still waiting in its queue, and {@code
   * not_submitted} is checked against evidence gathered anew ({@link #CANCEL_QUEUED_DISPATCH}).
   */
  boolean cancelsQueuedDispatch() {
    return cancelsQueuedDispatch;
  }

  /** Asked once right after registration. */
  int cancellation() {
    return current ? 1 : Workflow.getVersion(CANCEL_WITH_MEANING, Workflow.DEFAULT_VERSION, 1);
  }

  /** Asked by every resolution received and applied; the first one records the marker. */
  boolean checksResolutionsWhole() {
    return current || Workflow.getVersion(CHECKED_RESOLUTIONS, Workflow.DEFAULT_VERSION, 1) == 1;
  }

  /** Asked whenever a review opens, after the phase is published. */
  boolean gathersEvidence() {
    return current || Workflow.getVersion(REVIEW_EVIDENCE, Workflow.DEFAULT_VERSION, 1) == 1;
  }

  /** Asked whenever polling observation starts, after {@link #observesByPolling}. */
  boolean observesBySchedule() {
    return current || Workflow.getVersion(OBSERVE_BY_SCHEDULE, Workflow.DEFAULT_VERSION, 1) == 1;
  }

  /** Asked whenever observation starts, before the phase is published. */
  boolean observesByPolling() {
    return registeredAfterPolling
        || Workflow.getVersion(OBSERVE_BY_POLLING, Workflow.DEFAULT_VERSION, 1)
            != Workflow.DEFAULT_VERSION;
  }
}
