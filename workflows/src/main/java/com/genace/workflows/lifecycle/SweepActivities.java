package com.genace.workflows.lifecycle;

import io.temporal.activity.ActivityInterface;

/** The orphan sweeper's one step. */
@ActivityInterface
public interface SweepActivities {

  /**
   * One pass of the walk over every operation whose ledger row is not terminal: pages of them in
   * {@code (phase, created_at)} order, from where the previous pass stopped (a position kept in the
   * ledger), until the walk's end or the pass's bound in pages or time; each is checked against its
   * workflow (described through the Temporal service). For each whose workflow is closed or
   * missing:
   *
   * <ol>
   *   <li>moves the row to review with the reason {@code workflow_closed} and the close status as
   *       evidence, fenced by the revision it read and a free or expired lease (an activity of the
   *       closed workflow still writing keeps the row until the next walk); a row already in review
   *       keeps its reason and gets the evidence in its history;
   *   <li>starts a new run of the operation's workflow, which finds the review and waits for its
   *       resolution ({@code ops resolve} works again). That run cannot POST before an operator
   *       says {@code not_submitted}: a dispatch is only ever claimed from {@code pending}.
   * </ol>
   *
   * Idempotent: a second pass finds the running workflow and leaves the row alone.
   */
  SweepReport sweepOrphans();
}
