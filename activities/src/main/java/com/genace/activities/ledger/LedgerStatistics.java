package com.genace.activities.ledger;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.genace.activities.db.Sql;
import com.genace.activities.db.SqlStatement;
import com.genace.client.model.Phase;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * The fleet's figures from the table, so that they mean what they say whichever worker did the
 * work: operations per unfinished phase, open reviews and the age of the oldest, and how long the
 * oldest observation and delivery have been waiting.
 *
 * <p>They are computed once per {@code maxAge} for the whole fleet: they live in one row of {@code
 * app_fleet_statistics}; the first worker to find the row older than {@code maxAge} recomputes it
 * (others skip the locked row and read the previous figures), every other read is a primary-key
 * lookup. The computation reads only the partial index over unfinished operations, so its cost is
 * the work in flight, never the history (the overdue polls walk the poll schedule's index from its
 * oldest entry). Counts of finished operations and of past events are counters of the workers that
 * recorded them ({@link LedgerStats}), summed by the metrics backend.
 */
public final class LedgerStatistics {

  /**
   * One reading. {@code phases} holds every unfinished phase; {@code pollsOverdue} counts the
   * operations due for a status poll 5 s ago or more that no poll loop has claimed yet (a loop
   * claims due ones within a second, so these are the observation's backlog: add workers when it
   * grows); the most overdue is {@code oldestPollOverdueSeconds} late. {@code
   * oldestObservationAgeSeconds} and {@code oldestDeliveryAgeSeconds} are how long the operation
   * longest observing (its render not finished) or delivering has been in that phase ({@code
   * phase_since}), 0 when there is none.
   */
  public record Snapshot(
      Map<Phase, Long> phases,
      long openReviews,
      double oldestReviewAgeSeconds,
      long pollsOverdue,
      double oldestPollOverdueSeconds,
      Instant computedAt,
      String computedBy,
      double oldestObservationAgeSeconds,
      double oldestDeliveryAgeSeconds) {}

  public static final Duration DEFAULT_MAX_AGE = Duration.ofSeconds(10);

  private static final ObjectMapper JSON = new ObjectMapper();

  private final Sql sql;
  private final Duration maxAge;
  private final String reader;

  public LedgerStatistics(DataSource dataSource) {
    this(Sql.of(dataSource), DEFAULT_MAX_AGE, "unnamed");
  }

  /**
   * @param reader who recomputes the figures when they are stale (a worker id), for diagnosis
   */
  public LedgerStatistics(Sql sql, Duration maxAge, String reader) {
    this.sql = sql.as("ledger", LedgerException::of);
    this.maxAge = maxAge;
    this.reader = reader;
  }

  /**
   * Recomputes the fleet's figures when they are older than the given age and nobody else is at it,
   * then returns the current ones. The figures' subqueries each walk only the unfinished index.
   */
  static final SqlStatement READ =
      SqlStatement.of(
          "fleet_statistics",
          """
          WITH fresh AS (
            UPDATE app_fleet_statistics s
            SET figures = jsonb_build_object(
                  'phases', (SELECT coalesce(jsonb_object_agg(phase, n), '{}'::jsonb)
                             FROM (SELECT phase, count(*) AS n FROM app_generation_operations
                                   WHERE next_action <> 'none' GROUP BY phase) p),
                  'open_reviews', (SELECT count(*) FROM app_generation_operations
                                   WHERE next_action <> 'none' AND phase = 'in_review'),
                  'oldest_review_opened_at', (SELECT min(review_opened_at)
                                              FROM app_generation_operations
                                              WHERE next_action <> 'none'
                                                AND phase = 'in_review'),
                  'polls_overdue', (SELECT count(*) FROM app_generation_operations
                                    WHERE poll_due_at < statement_timestamp() - interval '5 seconds'),
                  'oldest_poll_due_at', (SELECT min(poll_due_at) FROM app_generation_operations
                                         WHERE poll_due_at IS NOT NULL),
                  'oldest_observing_since', (SELECT min(phase_since)
                                             FROM app_generation_operations
                                             WHERE next_action <> 'none'
                                               AND phase = 'observing'),
                  'oldest_delivering_since', (SELECT min(phase_since)
                                              FROM app_generation_operations
                                              WHERE next_action <> 'none'
                                                AND phase = 'delivering')),
                refreshed_at = clock_timestamp(),
                refreshed_by = ?
            WHERE s.id = (SELECT t.id FROM app_fleet_statistics t
                          WHERE t.refreshed_at <= clock_timestamp() - ?::interval
                          FOR UPDATE SKIP LOCKED)
            RETURNING s.figures, s.refreshed_at, s.refreshed_by
          ),
          current AS (
            SELECT figures, refreshed_at, refreshed_by FROM fresh
            UNION ALL
            SELECT figures, refreshed_at, refreshed_by FROM app_fleet_statistics
            WHERE id = 1 AND NOT EXISTS (SELECT 1 FROM fresh)
          )
          SELECT figures::text AS figures, refreshed_at, refreshed_by,
                 coalesce(extract(epoch FROM clock_timestamp()
                     - (figures ->> 'oldest_review_opened_at')::timestamptz), 0) AS oldest_age,
                 greatest(coalesce(extract(epoch FROM refreshed_at
                     - (figures ->> 'oldest_poll_due_at')::timestamptz), 0), 0) AS oldest_poll_late,
                 greatest(coalesce(extract(epoch FROM clock_timestamp()
                     - (figures ->> 'oldest_observing_since')::timestamptz), 0), 0)
                     AS oldest_observation_age,
                 greatest(coalesce(extract(epoch FROM clock_timestamp()
                     - (figures ->> 'oldest_delivering_since')::timestamptz), 0), 0)
                     AS oldest_delivery_age
          FROM current
          """);

  /** The row's first version: stale at once, so that the first read computes it. */
  static final SqlStatement CREATE =
      SqlStatement.of(
          "create_fleet_statistics",
          """
          INSERT INTO app_fleet_statistics (id, figures, refreshed_at, refreshed_by)
          VALUES (1, '{}'::jsonb, '-infinity', ?)
          ON CONFLICT (id) DO NOTHING
          """);

  public Snapshot read() {
    Optional<Snapshot> snapshot = readOnce();
    if (snapshot.isEmpty()) {
      sql.update(CREATE, p -> p.text(reader)); // refreshed_by
      snapshot = readOnce();
    }
    return snapshot.orElseThrow(() -> new LedgerException("fleet statistics row is missing"));
  }

  private Optional<Snapshot> readOnce() {
    return sql.queryOne(
        READ,
        p ->
            p.text(reader) // refreshed_by
                .interval(maxAge), // clock_timestamp() - refreshed_at
        rs -> {
          JsonNode figures = parse(rs.getString("figures"));
          Map<Phase, Long> phases = new EnumMap<>(Phase.class);
          for (Phase phase : Phase.values()) {
            if (!phase.isTerminal()) {
              phases.put(phase, figures.path("phases").path(phase.wire()).asLong(0));
            }
          }
          return new Snapshot(
              phases,
              figures.path("open_reviews").asLong(0),
              rs.getDouble("oldest_age"),
              figures.path("polls_overdue").asLong(0),
              rs.getDouble("oldest_poll_late"),
              Sql.instant(rs, "refreshed_at").orElseThrow(),
              rs.getString("refreshed_by"),
              rs.getDouble("oldest_observation_age"),
              rs.getDouble("oldest_delivery_age"));
        });
  }

  private static JsonNode parse(String json) {
    try {
      return JSON.readTree(json);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException("fleet statistics are not JSON", e);
    }
  }
}
