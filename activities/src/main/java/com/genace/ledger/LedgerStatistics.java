package com.genace.ledger;

import com.genace.model.Phase;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import javax.sql.DataSource;

/**
 * Fleet-wide figures read from the table, so that they mean what they say whichever worker did the
 * work: operations per phase, open reviews and the age of the oldest, recorded transitions by event
 * (dispatch outcomes among them) and denied exclusive writes.
 */
public final class LedgerStatistics {

  /** One reading. {@code events} counts accepted transitions by event name. */
  public record Snapshot(
      Map<Phase, Long> phases,
      long openReviews,
      double oldestReviewAgeSeconds,
      Map<String, Long> events,
      long deniedWrites) {}

  private static final String REVIEWS =
      """
      SELECT count(*) AS open_reviews,
             coalesce(extract(epoch FROM clock_timestamp() - min(review_opened_at)), 0) AS oldest
      FROM app_generation_operations WHERE phase = 'in_review'
      """;

  private static final String EVENTS =
      """
      SELECT event, accepted, count(*) AS n FROM app_generation_transitions
      GROUP BY event, accepted
      """;

  private final Jdbc jdbc;
  private final OperationsLedger ledger;

  public LedgerStatistics(DataSource dataSource) {
    this.jdbc = new Jdbc(dataSource);
    this.ledger = new OperationsLedger(dataSource);
  }

  public Snapshot read() {
    Map<Phase, Long> phases = ledger.countByPhase();
    double[] reviews =
        jdbc.queryOne(REVIEWS, List.of(), rs -> new double[] {rs.getLong(1), rs.getDouble(2)})
            .orElseThrow();
    Map<String, Long> events = new TreeMap<>();
    long[] denied = {0};
    jdbc.query(
        EVENTS,
        List.of(),
        rs -> {
          if (rs.getBoolean("accepted")) {
            events.put(rs.getString("event"), rs.getLong("n"));
          } else {
            denied[0] += rs.getLong("n");
          }
          return null;
        });
    return new Snapshot(phases, (long) reviews[0], reviews[1], events, denied[0]);
  }
}
