package com.genace.worker;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

/**
 * How a worker waits for what it needs at start (Temporal, the ledger, Genace) during an outage:
 * checks 1 s apart, doubling to {@link #MAX_PAUSE}, so that a fleet restarted during an outage
 * neither crash-loops nor hammers what is down; and one log line when the problem changes, then one
 * a minute while it lasts.
 */
final class StartupWait {

  static final Duration FIRST_PAUSE = Duration.ofSeconds(1);
  static final Duration MAX_PAUSE = Duration.ofSeconds(30);
  static final Duration LOG_EVERY = Duration.ofMinutes(1);

  private final Clock clock;
  private final Instant since;
  private Duration pause = FIRST_PAUSE;
  private String loggedKind;
  private Instant loggedAt;

  StartupWait(Clock clock) {
    this.clock = clock;
    this.since = clock.instant();
  }

  Instant since() {
    return since;
  }

  /** The pause before the next check: 1, 2, 4, ... s, at most {@link #MAX_PAUSE}. */
  Duration nextPause() {
    Duration now = pause;
    pause = pause.multipliedBy(2).compareTo(MAX_PAUSE) > 0 ? MAX_PAUSE : pause.multipliedBy(2);
    return now;
  }

  /**
   * Whether to log {@code problem}: its kind (the reason before the first {@code :}) changed, or it
   * was last logged a minute ago or more.
   */
  boolean shouldLog(String problem) {
    int colon = problem.indexOf(':');
    String kind = colon < 0 ? problem : problem.substring(0, colon);
    Instant now = clock.instant();
    if (kind.equals(loggedKind) && now.isBefore(loggedAt.plus(LOG_EVERY))) {
      return false;
    }
    loggedKind = kind;
    loggedAt = now;
    return true;
  }
}
