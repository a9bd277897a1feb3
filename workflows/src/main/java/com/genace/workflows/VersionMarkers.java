package com.genace.workflows;

import io.temporal.workflow.Workflow;

/**
 * The one place a change to what a running workflow does is declared: each change id for {@link
 * Workflow#getVersion}, with a method that asks it at the point of the change. Release 0.1.0 has
 * none: its workflows run the code's one version.
 *
 * <p>The rule (docs/workflow-versions.md): a change to workflow code that running workflows would
 * replay differently ships with its change id here, asked where the change is; the released
 * histories ({@code release/<version>/}) keep replaying. A branch is deleted only once the releases
 * whose runs take it are retired (no open run), and its removal names that release.
 */
final class VersionMarkers {

  private VersionMarkers() {}
}
