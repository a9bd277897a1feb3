package com.genace.workflows;

import io.temporal.workflow.Workflow;

/**
 * The one place a change to what a running workflow does is declared: each change id for {@link
 * Workflow#getVersion}, with a method that asks it at the point of the change. There is none yet:
 * the workflow has one version, the one every workflow runs.
 *
 * <p>The rule (docs/workflow-versions.md): a change to workflow code that running workflows would
 * replay differently ships with its change id here, asked where the change is, and a saved history
 * of the old version under {@code histories/}; a branch is deleted only once a visibility query
 * shows that no open workflow runs the old version.
 */
final class VersionMarkers {

  private VersionMarkers() {}
}
