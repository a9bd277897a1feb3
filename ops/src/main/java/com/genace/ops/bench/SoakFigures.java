package com.genace.ops.bench;

import com.genace.workflows.lifecycle.RetentionReport;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code bench soak}'s figures, size by size, and its report. Each map is keyed by the size (the
 * number of ended operations); {@code hot_growth} is the largest size's median over the smallest's,
 * for the statement that grew most, from the medians of the repeats; {@code hot_growth_spread} is
 * the lowest and highest of that figure taken repeat by repeat.
 */
final class SoakFigures {

  private final Map<String, Map<String, Double>> hot = new LinkedHashMap<>();
  private final Map<String, List<Map<String, Double>>> repeats = new LinkedHashMap<>();
  private final Map<String, Map<String, Map<String, Double>>> spread = new LinkedHashMap<>();
  private final Map<String, Double> gaugesMs = new LinkedHashMap<>();
  private final Map<String, Double> sweepMs = new LinkedHashMap<>();
  private final Map<String, Long> sweepRows = new LinkedHashMap<>();
  private final Map<String, Long> retentionMs = new LinkedHashMap<>();
  private final Map<String, Long> retentionDeleted = new LinkedHashMap<>();
  private final Map<String, Map<String, Object>> hotActivity = new LinkedHashMap<>();
  private Map<String, Double> hotDuringRetention;

  /** What the database did while the hot statements ran at {@code size} ({@link TableActivity}). */
  void hotActivity(int size, Map<String, Object> activity) {
    hotActivity.put(String.valueOf(size), activity);
  }

  /** What was measured at {@code size}; returns its progress line. */
  String add(
      int size,
      List<Map<String, Double>> hotRepeats,
      double gauges,
      double sweepMillis,
      long sweepRowsSeen,
      RetentionReport retention) {
    String key = String.valueOf(size);
    Map<String, Double> hotMedians = new LinkedHashMap<>();
    Map<String, Map<String, Double>> range = new LinkedHashMap<>();
    for (String statement : hotRepeats.get(0).keySet()) {
      List<Double> each = hotRepeats.stream().map(r -> r.get(statement)).sorted().toList();
      hotMedians.put(statement, Figures.percentile(each, 50));
      range.put(statement, minMax(each));
    }
    hot.put(key, hotMedians);
    repeats.put(key, hotRepeats);
    spread.put(key, range);
    gaugesMs.put(key, gauges);
    sweepMs.put(key, sweepMillis);
    sweepRows.put(key, sweepRowsSeen);
    retentionMs.put(key, retention.elapsedMillis());
    retentionDeleted.put(key, retention.operationsDeleted());
    return "size "
        + size
        + ": hot "
        + hotMedians
        + ", gauges "
        + gauges
        + " ms, sweep "
        + sweepMillis
        + " ms, retention "
        + retention.operationsDeleted()
        + " deleted in "
        + retention.elapsedMillis()
        + " ms";
  }

  /** The hot statements' medians while the largest size's retention pass ran. */
  void duringRetention(Map<String, Double> medians) {
    hotDuringRetention = medians;
  }

  BenchReport report(int operations, int repeated, long transitions, List<Integer> sizes) {
    String first = String.valueOf(sizes.get(0));
    String last = String.valueOf(sizes.get(sizes.size() - 1));
    Map<String, Double> smallest = hot.get(first);
    Map<String, Double> largest = hot.get(last);
    List<Double> growths = new ArrayList<>();
    for (int i = 0; i < repeated; i++) {
      growths.add(worstRatio(repeats.get(last).get(i), repeats.get(first).get(i)));
    }
    growths.sort(null);
    BenchReport report =
        new BenchReport("soak")
            .put("operations", operations)
            .put("transitions", transitions)
            .put("unfinished", SoakBench.UNFINISHED)
            .put("repeats", repeated)
            .put("hot_ms", hot)
            .put("hot_ms_spread", spread)
            .put("hot_growth", worstRatio(largest, smallest))
            .put("hot_growth_spread", minMax(growths))
            .put("hot_growth_statement", worstStatement(largest, smallest))
            .put("hot_activity", hotActivity)
            .put("gauges_ms", gaugesMs)
            .put("sweep_pass_ms", sweepMs)
            .put("sweep_rows_seen", sweepRows)
            .put("retention_pass_ms", retentionMs)
            .put("retention_deleted", retentionDeleted)
            .put("retention_days", SoakBench.RETENTION_DAYS);
    if (hotDuringRetention != null) {
      report
          .put("hot_ms_during_retention", hotDuringRetention)
          .put("hot_during_retention_ratio", worstRatio(hotDuringRetention, largest));
    }
    return report;
  }

  /** The largest ratio of {@code to} over {@code from} among the statements; null without data. */
  static Double worstRatio(Map<String, Double> to, Map<String, Double> from) {
    Double worst = null;
    for (String statement : to.keySet()) {
      Double ratio = Figures.ratio(to.get(statement), from.get(statement));
      if (ratio != null && (worst == null || ratio > worst)) {
        worst = ratio;
      }
    }
    return worst;
  }

  private static String worstStatement(Map<String, Double> to, Map<String, Double> from) {
    String worst = null;
    double max = Double.NEGATIVE_INFINITY;
    for (String statement : to.keySet()) {
      Double ratio = Figures.ratio(to.get(statement), from.get(statement));
      if (ratio != null && ratio > max) {
        max = ratio;
        worst = statement;
      }
    }
    return worst;
  }

  /** The lowest and highest of sorted {@code values}. */
  private static Map<String, Double> minMax(List<Double> sorted) {
    Map<String, Double> range = new LinkedHashMap<>();
    range.put("min", sorted.get(0));
    range.put("max", sorted.get(sorted.size() - 1));
    return range;
  }
}
