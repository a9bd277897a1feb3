package com.genace.activities.observation;

import com.genace.activities.ledger.DuePoll;
import com.genace.activities.ledger.OperationRow;
import com.genace.workflows.observation.ObservationResult;
import java.util.Optional;

/**
 * One status poll of an operation claimed from the ledger's poll schedule, and its consequences for
 * the schedule: what {@link ObservationActivitiesImpl} makes for the first poll of an observation,
 * and {@link PollLoop} for each later one. {@link GenaceStatusPoll} is the one that asks Genace.
 */
public interface StatusPoll {

  /**
   * Polls the claimed operation once and says what is left to do: tell its waiting activity an
   * outcome, put its next poll on the schedule after a delay (left to the caller, who writes many
   * at once, and calls {@link #overtaken} if that reschedule does not apply), or nothing, when the
   * operation moved on without an observation's outcome (abandoned) and left the schedule.
   */
  PollStep poll(DuePoll claimed);

  /**
   * A claim whose reschedule was overtaken: another claim has the schedule (it will tell), or a
   * terminal snapshot took the operation off it meanwhile, whose outcome no one may be left to tell
   * but this poll.
   *
   * @return the outcome to tell, if the ledger has one
   */
  Optional<ObservationResult> overtaken(DuePoll claimed);

  /** Ends the schedule of a claimed operation whose waiting activity has its outcome. */
  void told(DuePoll claimed, ObservationResult outcome);

  /**
   * The outcome of an operation that is past observation (or not observable now), as {@code row}
   * shows it.
   *
   * @throws io.temporal.failure.ApplicationFailure when the ledger has no outcome yet: retryable,
   *     paced as the {@code attempt}-th poll (from 1) would be
   */
  ObservationResult ended(OperationRow row, int attempt);
}
