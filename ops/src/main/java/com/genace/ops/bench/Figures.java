package com.genace.ops.bench;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;

/**
 * The arithmetic behind every reported figure, in one place so that it is tested once. Rates are
 * per second of measured time, rounded to two decimals; a figure that cannot be computed (nothing
 * measured, a zero denominator) is {@code null}, never a made-up zero or infinity.
 */
final class Figures {

  private Figures() {}

  /** {@code count} events over {@code elapsed}, per second. */
  static Double perSecond(long count, Duration elapsed) {
    if (elapsed.isZero() || elapsed.isNegative()) {
      return null;
    }
    return round(count * 1e9 / elapsed.toNanos());
  }

  /** {@code ours / baseline}: above 1 means ours is faster. */
  static Double ratio(Double ours, Double baseline) {
    if (ours == null || baseline == null || baseline == 0) {
      return null;
    }
    return round(ours / baseline);
  }

  /** {@code total / operations}. */
  static Double perOperation(double total, long operations) {
    return operations <= 0 ? null : round(total / operations);
  }

  /**
   * The nearest-rank percentile ({@code p} in 0..100) of the samples, in the samples' unit; null
   * when there are none.
   */
  static Double percentile(List<Double> samples, double p) {
    if (samples.isEmpty()) {
      return null;
    }
    if (p < 0 || p > 100) {
      throw new IllegalArgumentException("percentile must be between 0 and 100");
    }
    double[] sorted = samples.stream().mapToDouble(Double::doubleValue).toArray();
    Arrays.sort(sorted);
    int rank = (int) Math.ceil(p / 100 * sorted.length);
    return round(sorted[Math.max(0, rank - 1)]);
  }

  /** Nanoseconds as milliseconds. */
  static double millis(long nanos) {
    return nanos / 1e6;
  }

  /** Bytes as mebibytes. */
  static Double mebibytes(Long bytes) {
    return bytes == null ? null : round(bytes / (1024.0 * 1024.0));
  }

  static double round(double value) {
    return Math.round(value * 100) / 100.0;
  }
}
