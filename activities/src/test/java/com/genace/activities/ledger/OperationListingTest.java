package com.genace.activities.ledger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.genace.activities.testing.LedgerFixtures;
import com.genace.activities.testing.QueryPlans;
import com.genace.client.model.Phase;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code ops list}'s reads: pages that say whether more follow, order, and each filter. */
class OperationListingTest {

  @RegisterExtension final LedgerFixtures fixtures = LedgerFixtures.fresh();

  private final DataSource db = fixtures.dataSource();
  private final OperationsLedger ledger = fixtures.ledger();

  @BeforeEach
  void setUp() {
    // op-1 is the oldest (5 hours), op-5 the newest (1 hour); op-2 and op-4 belong to acme.
    for (int i = 1; i <= 5; i++) {
      String account = i % 2 == 0 ? "acme" : "default";
      ledger.create(new NewOperation("op-" + i, "image-v1", "{}", account));
      QueryPlans.execute(
          db,
          "UPDATE app_generation_operations SET created_at = clock_timestamp() - interval '"
              + (6 - i)
              + " hours' WHERE operation_id = 'op-"
              + i
              + "'");
    }
    QueryPlans.execute(
        db,
        "UPDATE app_generation_operations SET phase = 'failed', next_action = 'none',"
            + " failure_reason = 'refused by Genace' WHERE operation_id = 'op-3'");
  }

  private List<String> ids(OperationPage page) {
    return page.rows().stream().map(OperationRow::operationId).toList();
  }

  private OperationQuery query(ListOrder order, int limit, Optional<String> after) {
    return new OperationQuery(
        Optional.empty(), Optional.empty(), Duration.ZERO, after, order, limit);
  }

  @Test
  void pages_walk_every_operation_once_and_say_when_more_follow() {
    OperationPage first = ledger.list(query(ListOrder.NEWEST_FIRST, 2, Optional.empty()));
    OperationPage second = ledger.list(query(ListOrder.NEWEST_FIRST, 2, Optional.of("op-4")));
    OperationPage last = ledger.list(query(ListOrder.NEWEST_FIRST, 2, Optional.of("op-2")));

    assertThat(ids(first)).containsExactly("op-5", "op-4");
    assertThat(first.more()).isTrue();
    assertThat(ids(second)).containsExactly("op-3", "op-2");
    assertThat(second.more()).isTrue();
    assertThat(ids(last)).containsExactly("op-1");
    assertThat(last.more()).isFalse();
  }

  @Test
  void oldest_first_pages_the_other_way() {
    OperationPage first = ledger.list(query(ListOrder.OLDEST_FIRST, 3, Optional.empty()));
    OperationPage rest = ledger.list(query(ListOrder.OLDEST_FIRST, 3, Optional.of("op-3")));

    assertThat(ids(first)).containsExactly("op-1", "op-2", "op-3");
    assertThat(ids(rest)).containsExactly("op-4", "op-5");
    assertThat(rest.more()).isFalse();
  }

  @Test
  void filters_by_phase_account_and_age_combine() {
    OperationPage acme =
        ledger.list(
            new OperationQuery(
                Optional.empty(),
                Optional.of("acme"),
                Duration.ZERO,
                Optional.empty(),
                ListOrder.NEWEST_FIRST,
                10));
    OperationPage oldPending =
        ledger.list(
            new OperationQuery(
                Optional.of(Phase.PENDING),
                Optional.empty(),
                Duration.ofMinutes(150),
                Optional.empty(),
                ListOrder.NEWEST_FIRST,
                10));
    OperationPage failed =
        ledger.list(
            new OperationQuery(
                Optional.of(Phase.FAILED),
                Optional.of("default"),
                Duration.ofHours(1),
                Optional.empty(),
                ListOrder.OLDEST_FIRST,
                10));

    assertThat(ids(acme)).containsExactly("op-4", "op-2");
    assertThat(ids(oldPending)).containsExactly("op-2", "op-1");
    assertThat(ids(failed)).containsExactly("op-3");
    assertThat(failed.rows().get(0).failureReason()).contains("refused by Genace");
  }

  @Test
  void an_unknown_cursor_or_a_bad_limit_is_refused() {
    assertThatThrownBy(() -> ledger.list(query(ListOrder.NEWEST_FIRST, 2, Optional.of("op-9"))))
        .isInstanceOf(UnknownOperationException.class);
    assertThatThrownBy(() -> ledger.list(query(ListOrder.NEWEST_FIRST, 0, Optional.empty())))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
