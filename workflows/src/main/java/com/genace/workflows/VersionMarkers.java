package com.genace.workflows;

import io.temporal.workflow.Workflow;

/**
 * The one place a change to what a running workflow does is declared: each change id for {@link
 * Workflow#getVersion}, with a method that asks it at the point of the change.
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

  private VersionMarkers() {}
}
