package com.genace.activities.observation;

import static org.assertj.core.api.Assertions.assertThat;

import com.genace.activities.ledger.ClaimResult;
import com.genace.activities.ledger.DuePoll;
import com.genace.activities.ledger.Lease;
import com.genace.activities.ledger.NewOperation;
import com.genace.activities.ledger.OperationsLedger;
import com.genace.activities.testing.DatabaseExtension;
import com.genace.client.model.NextAction;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The poll loop's reschedules, written together, against the real ledger. */
@ExtendWith(DatabaseExtension.class)
class PollReschedulesTest {

  private static final Duration CLAIM = Duration.ofSeconds(30);

  private final AtomicLong nanos = new AtomicLong();
  private final List<String> overtaken = new ArrayList<>();
  private DataSource db;
  private OperationsLedger ledger;
  private PollReschedules reschedules;

  @BeforeEach
  void setUp(DataSource db) {
    this.db = db;
    this.ledger = new OperationsLedger(db, CLAIM);
    this.reschedules =
        new PollReschedules(
            ledger.polls(), claimed -> overtaken.add(claimed.row().operationId()), nanos::get);
  }

  @Test
  void a_delay_counts_from_when_the_poll_asked_for_it_not_from_the_write() {
    DuePoll claimed = claimedObserving("op-1");
    reschedules.add(claimed, Duration.ofSeconds(10));
    nanos.addAndGet(Duration.ofSeconds(4).toNanos()); // the writer comes 4 s later

    reschedules.flush();

    Duration left = Duration.between(Instant.now(), dueAt("op-1"));
    assertThat(left).isBetween(Duration.ofSeconds(4), Duration.ofSeconds(7));
    assertThat(overtaken).isEmpty();
  }

  @Test
  void more_than_one_batch_is_written_and_the_overtaken_are_handed_on() {
    List<DuePoll> claimed = new ArrayList<>();
    for (int i = 0; i < PollReschedules.BATCH + 20; i++) {
      claimed.add(claimedObserving("op-" + i));
    }
    execute("UPDATE app_generation_operations SET poll_due_at = NULL WHERE operation_id = 'op-7'");
    claimed.forEach(c -> reschedules.add(c, Duration.ofSeconds(60)));

    reschedules.flush();

    assertThat(overtaken).containsExactly("op-7");
    assertThat(dueAt("op-" + (PollReschedules.BATCH + 19))).isAfter(Instant.now().plusSeconds(45));
    reschedules.flush();
    assertThat(overtaken).as("nothing is written twice").containsExactly("op-7");
  }

  /** An accepted operation, claimed from the schedule by this loop. */
  private DuePoll claimedObserving(String id) {
    ledger.create(new NewOperation(id, "image-v1", "{\"prompt\":\"fox\"}"));
    Lease dispatch =
        ((ClaimResult.Acquired) ledger.claim(id, "dispatcher", NextAction.DISPATCH)).lease();
    ledger.markSubmitting(dispatch);
    ledger.recordAccepted(dispatch, "gen_" + id);
    execute(
        "UPDATE app_generation_operations SET poll_due_at = clock_timestamp() - interval '1 ms'"
            + " WHERE operation_id = '"
            + id
            + "'");
    return ledger.polls().claimDue(1, CLAIM).get(0);
  }

  private Instant dueAt(String id) {
    try (Connection c = db.getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "SELECT poll_due_at FROM app_generation_operations WHERE operation_id = ?")) {
      s.setString(1, id);
      try (ResultSet rs = s.executeQuery()) {
        rs.next();
        return rs.getTimestamp(1).toInstant();
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private void execute(String sql) {
    try (Connection c = db.getConnection();
        PreparedStatement s = c.prepareStatement(sql)) {
      s.executeUpdate();
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }
}
