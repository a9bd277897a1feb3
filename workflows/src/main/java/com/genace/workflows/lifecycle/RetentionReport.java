package com.genace.workflows.lifecycle;

/**
 * What one retention pass deleted: ended operations and, with them, their transitions, review
 * evidence and reservations; the due operations it kept because the spending allowance still counts
 * one of their reservations; how many batches (each a few short transactions) it took and how long;
 * whether it reached the last due operation ({@code complete}) or stopped at its bound (the next
 * pass goes on); and the window it applied, in seconds (0: nothing is deleted), which is never
 * shorter than Temporal's own retention of closed workflows.
 */
public record RetentionReport(
    long operationsDeleted,
    long transitionsDeleted,
    long evidenceDeleted,
    long reservationsDeleted,
    long keptForAllowance,
    int batches,
    long elapsedMillis,
    boolean complete,
    long windowSeconds) {

  /** A pass that deleted nothing because everything is kept. */
  public static RetentionReport keptEverything() {
    return new RetentionReport(0, 0, 0, 0, 0, 0, 0, true, 0);
  }
}
