package com.genace.worker;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class StartupWaitTest {

  /** A clock the test moves. */
  private static final class MovingClock extends Clock {
    private Instant now = Instant.parse("2026-12-04T12:00:00Z");

    void advance(Duration by) {
      now = now.plus(by);
    }

    @Override
    public ZoneId getZone() {
      return ZoneId.of("UTC");
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return now;
    }
  }

  @Test
  void checks_back_off_from_one_second_to_thirty() {
    StartupWait wait = new StartupWait(Clock.systemUTC());
    List<Long> pauses = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      pauses.add(wait.nextPause().toSeconds());
    }

    assertThat(pauses).containsExactly(1L, 2L, 4L, 8L, 16L, 30L, 30L, 30L);
  }

  @Test
  void a_problem_is_logged_when_it_changes_and_then_once_a_minute() {
    MovingClock clock = new MovingClock();
    StartupWait wait = new StartupWait(clock);

    assertThat(wait.shouldLog("temporal_unreachable: connection refused")).isTrue();
    clock.advance(Duration.ofSeconds(30));
    assertThat(wait.shouldLog("temporal_unreachable: deadline exceeded")).isFalse();
    clock.advance(Duration.ofSeconds(30));
    assertThat(wait.shouldLog("temporal_unreachable: connection refused")).isTrue();
    clock.advance(Duration.ofSeconds(1));
    assertThat(wait.shouldLog("ledger_unavailable: connection refused")).isTrue();
    clock.advance(Duration.ofSeconds(59));
    assertThat(wait.shouldLog("ledger_unavailable: connection refused")).isFalse();
    clock.advance(Duration.ofSeconds(1));
    assertThat(wait.shouldLog("ledger_unavailable: connection refused")).isTrue();
    assertThat(wait.since()).isEqualTo(Instant.parse("2026-12-04T12:00:00Z"));
  }
}
