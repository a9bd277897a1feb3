package com.genace.activities.observation;

import java.time.Duration;
import java.util.random.RandomGenerator;

/**
 * How status polls are paced: exponential backoff between {@code initialDelay} and {@code
 * maxDelay}, each delay spread by up to {@code jitter} (a fraction) so that many operations do not
 * poll in step. A {@code Retry-After} from Genace is honoured when it is longer.
 */
public record PollingPolicy(
    Duration initialDelay, Duration maxDelay, double multiplier, double jitter) {

  public static final PollingPolicy DEFAULT =
      new PollingPolicy(Duration.ofSeconds(1), Duration.ofSeconds(15), 1.5, 0.2);

  public PollingPolicy {
    if (initialDelay.isNegative()
        || initialDelay.isZero()
        || maxDelay.compareTo(initialDelay) < 0) {
      throw new IllegalArgumentException("poll delays must be positive and max >= initial");
    }
    if (multiplier < 1 || jitter < 0 || jitter >= 1) {
      throw new IllegalArgumentException("invalid polling policy");
    }
  }

  /**
   * The wait after poll number {@code attempt} (1 for the first), jittered: {@code initialDelay}
   * grown by {@code multiplier} per poll, at most {@code maxDelay}.
   */
  public Duration afterPoll(int attempt, RandomGenerator random) {
    double grown = initialDelay.toMillis() * Math.pow(multiplier, Math.max(0, attempt - 1));
    long millis = (long) Math.min(maxDelay.toMillis(), Math.ceil(grown));
    return jittered(Duration.ofMillis(millis), random);
  }

  /** The delay after {@code current}, before jitter. */
  public Duration next(Duration current) {
    long millis = (long) Math.ceil(current.toMillis() * multiplier);
    return millis > maxDelay.toMillis() ? maxDelay : Duration.ofMillis(millis);
  }

  /** {@code delay} spread by up to plus or minus {@code jitter}. */
  public Duration jittered(Duration delay, RandomGenerator random) {
    double factor = 1 + jitter * (2 * random.nextDouble() - 1);
    return Duration.ofMillis(Math.max(1, Math.round(delay.toMillis() * factor)));
  }

  /** The same policy with {@code maxDelay} as its slowest pace. */
  public PollingPolicy withMaxDelay(Duration maxDelay) {
    return new PollingPolicy(initialDelay, maxDelay, multiplier, jitter);
  }
}
