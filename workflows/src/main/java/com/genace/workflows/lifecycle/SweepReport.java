package com.genace.workflows.lifecycle;

import java.util.List;

/**
 * What one sweep pass did: how many unfinished operations it checked (the rows it read), the
 * orphans among them (operations whose workflow was closed or missing, each now repaired from
 * Temporal's history or in review with a run waiting for its resolution), the operations whose run
 * still runs but whose row was behind it or lost (each written back from that run's history), how
 * many pages it read, how long it took, and whether it reached the end of the walk over every
 * unfinished operation (the next pass starts a new walk) or stopped at its bound (the next pass
 * resumes where it stopped).
 */
public record SweepReport(
    int checked,
    List<String> orphans,
    int pages,
    long elapsedMillis,
    boolean walkCompleted,
    List<String> behindRunning) {

  public SweepReport {
    orphans = orphans == null ? List.of() : List.copyOf(orphans);
    behindRunning = behindRunning == null ? List.of() : List.copyOf(behindRunning);
  }

  /** A pass that found no running operation behind its run. */
  public SweepReport(
      int checked, List<String> orphans, int pages, long elapsedMillis, boolean walkCompleted) {
    this(checked, orphans, pages, elapsedMillis, walkCompleted, List.of());
  }
}
