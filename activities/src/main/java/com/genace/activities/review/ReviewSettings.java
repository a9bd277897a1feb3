package com.genace.activities.review;

import java.time.Duration;
import java.util.OptionalLong;

/**
 * How reviews gather their evidence and whether they settle themselves.
 *
 * @param autoReconcile whether a review with exactly one job carrying its operation id resolves
 *     itself ({@code GENACE_AUTO_RECONCILE})
 * @param searchWindow how long the search is repeated while it lists nothing, since it may lag
 *     creation ({@code GENACE_EVIDENCE_SEARCH_SECONDS})
 * @param searchInterval the wait between two searches
 * @param twoPersonCredits above this many estimated credits a {@code not_submitted} needs two
 *     distinct approvers ({@code GENACE_TWO_PERSON_CREDITS}); empty: one
 */
public record ReviewSettings(
    boolean autoReconcile,
    Duration searchWindow,
    Duration searchInterval,
    OptionalLong twoPersonCredits) {

  public static final Duration DEFAULT_SEARCH_WINDOW = Duration.ofSeconds(10);
  public static final Duration DEFAULT_SEARCH_INTERVAL = Duration.ofSeconds(1);

  /** Self-settling on, a 10 s search window searched every second. */
  public static final ReviewSettings DEFAULT =
      new ReviewSettings(true, DEFAULT_SEARCH_WINDOW, DEFAULT_SEARCH_INTERVAL);

  public ReviewSettings {
    if (searchWindow == null || searchWindow.isNegative()) {
      throw new IllegalArgumentException("the search window must not be negative");
    }
    if (searchInterval == null || searchInterval.isNegative() || searchInterval.isZero()) {
      throw new IllegalArgumentException("the search interval must be positive");
    }
    twoPersonCredits = twoPersonCredits == null ? OptionalLong.empty() : twoPersonCredits;
  }

  public ReviewSettings(boolean autoReconcile, Duration searchWindow, Duration searchInterval) {
    this(autoReconcile, searchWindow, searchInterval, OptionalLong.empty());
  }
}
