package com.genace.activities.dispatch;

import com.genace.activities.genace.GenaceClientConfig;
import java.time.Duration;
import java.util.Objects;

/**
 * How long after its claim a POST may still leave: only while the claim time, plus the longest the
 * POST may wait for its answer, plus the time recording that answer needs, still lies inside the
 * dispatch lease. A POST that leaves later could be answered {@code 201} after its lease ended: the
 * recording would be denied, and a paid job the worker knows about would become a review.
 *
 * <p>The one place this rule is stated: the dispatch checks it before every POST, and the worker
 * refuses at start a configuration under which it leaves less than {@link #MIN_SEND_TIME}.
 *
 * @param answerWithin the longest a POST waits for its answer, connecting included: the Genace read
 *     timeout ({@link GenaceClientConfig#readTimeout()} bounds the whole exchange, from before the
 *     connection to the last byte of the body)
 * @param recordingMargin what recording the answer under the lease needs once it came back: a
 *     ledger write, which waits at most the lock timeout (2 s) for its row, and its round trip
 */
public record SendWindow(Duration answerWithin, Duration recordingMargin) {

  /** The lock timeout (2 s) of the recording's statement, and a second for its round trip. */
  public static final Duration DEFAULT_RECORDING_MARGIN = Duration.ofSeconds(3);

  /**
   * The least time a configuration must leave between a claim and the last moment its POST may
   * leave: the claim, the allowance's reservation and the {@code submitting} mark are statements of
   * their own, and a window shorter than they take would record {@code not_sent} every time.
   */
  public static final Duration MIN_SEND_TIME = Duration.ofSeconds(1);

  /** The default read timeout and recording margin. */
  public static final SendWindow DEFAULT =
      new SendWindow(GenaceClientConfig.DEFAULT_READ_TIMEOUT, DEFAULT_RECORDING_MARGIN);

  public SendWindow {
    Objects.requireNonNull(answerWithin, "answerWithin");
    Objects.requireNonNull(recordingMargin, "recordingMargin");
    if (answerWithin.isNegative() || recordingMargin.isNegative()) {
      throw new IllegalArgumentException("a send window's durations must not be negative");
    }
  }

  /** With the default recording margin. */
  public static SendWindow forReadTimeout(Duration readTimeout) {
    return new SendWindow(readTimeout, DEFAULT_RECORDING_MARGIN);
  }

  /**
   * How long after its claim a POST may leave under a lease of {@code lease}: negative or zero when
   * it never may.
   */
  public Duration sendWithin(Duration lease) {
    return lease.minus(answerWithin).minus(recordingMargin);
  }

  /** Whether a lease of {@code lease} leaves at least {@link #MIN_SEND_TIME} to send in. */
  public boolean leavesRoomUnder(Duration lease) {
    return sendWithin(lease).compareTo(MIN_SEND_TIME) >= 0;
  }

  /** The shortest lease that {@link #leavesRoomUnder leaves room}. */
  public Duration shortestLease() {
    return answerWithin.plus(recordingMargin).plus(MIN_SEND_TIME);
  }
}
