package com.genace.activities.observation;

import com.genace.workflows.observation.ObservationResult;
import java.time.Duration;
import java.util.Optional;

/**
 * What one status poll of a claimed operation leaves to do ({@link StatusPoll#poll}): tell its
 * waiting activity an outcome, poll it {@code again} after a delay, or nothing (it left the
 * schedule).
 */
public record PollStep(Optional<ObservationResult> outcome, Optional<Duration> again) {

  static final PollStep NOTHING = new PollStep(Optional.empty(), Optional.empty());

  static PollStep tell(ObservationResult outcome) {
    return new PollStep(Optional.of(outcome), Optional.empty());
  }

  static PollStep after(Duration delay) {
    return new PollStep(Optional.empty(), Optional.of(delay));
  }
}
