package com.genace.activities.ledger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.genace.activities.db.Sql;
import com.genace.activities.db.SqlStatement;
import com.genace.activities.db.StatementStats;
import com.genace.activities.testing.DatabaseExtension;
import com.genace.client.model.NextAction;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Inside a trace, each ledger statement is a span named by what it does, without its values; every
 * statement is reported by name to the injected statistics.
 */
@ExtendWith(DatabaseExtension.class)
class StatementSpansTest {

  private final InMemorySpanExporter exporter = InMemorySpanExporter.create();
  private final OpenTelemetrySdk sdk =
      OpenTelemetrySdk.builder()
          .setTracerProvider(
              SdkTracerProvider.builder()
                  .addSpanProcessor(SimpleSpanProcessor.create(exporter))
                  .build())
          .build();
  private final List<String> counted = new CopyOnWriteArrayList<>();
  private Sql sql;
  private OperationsLedger ledger;

  @BeforeEach
  void setUp(DataSource dataSource) {
    StatementStats stats =
        (statement, elapsed, outcome) -> counted.add(statement + ":" + outcome.name());
    sql = new Sql(dataSource, sdk, stats).as("ledger", LedgerException::of);
    ledger = new OperationsLedger(sql, OperationsLedger.DEFAULT_LEASE_DURATION, LedgerStats.NONE);
  }

  @AfterEach
  void tearDown() {
    sdk.close();
  }

  private <T> T inTrace(Supplier<T> work) {
    Span parent = sdk.getTracer("test").spanBuilder("activity").startSpan();
    try (Scope ignored = parent.makeCurrent()) {
      return work.get();
    } finally {
      parent.end();
    }
  }

  @Test
  void a_statement_in_a_trace_is_a_child_span_with_its_sql_and_none_of_its_values() {
    inTrace(() -> ledger.find("op-private-value"));

    List<SpanData> spans = exporter.getFinishedSpanItems();
    assertThat(spans).extracting(SpanData::getName).containsExactly("ledger find", "activity");
    SpanData statement = spans.get(0);
    assertThat(statement.getParentSpanId()).isEqualTo(spans.get(1).getSpanId());
    assertThat(statement.getAttributes().get(Sql.DB_SYSTEM)).isEqualTo("postgresql");
    assertThat(statement.getAttributes().get(Sql.DB_TEXT)).isEqualTo(OperationRecords.FIND.sql());
    assertThat(statement.getAttributes().get(Sql.DB_ROWS)).isZero();
    statement
        .getAttributes()
        .forEach((key, value) -> assertThat(value.toString()).doesNotContain("op-private-value"));
    assertThat(counted).containsExactly("find:OK");
  }

  @Test
  void a_statement_outside_any_trace_records_no_span_but_is_counted() {
    ledger.countByPhase();

    assertThat(exporter.getFinishedSpanItems()).isEmpty();
    assertThat(counted).containsExactly("count_by_phase:OK");
  }

  @Test
  void a_failed_statement_is_an_error_span_with_its_sql_state_and_not_the_driver_message() {
    SqlStatement broken = SqlStatement.of("broken", "SELECT * FROM no_such_table WHERE id = ?");
    Throwable thrown =
        inTrace(
            () ->
                catchThrowable(() -> sql.query(broken, p -> p.text("op-private-value"), rs -> 1)));

    assertThat(thrown).isInstanceOf(LedgerException.class).hasMessageContaining("broken");
    SpanData statement = exporter.getFinishedSpanItems().get(0);
    assertThat(statement.getName()).isEqualTo("ledger broken");
    assertThat(statement.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
    assertThat(statement.getAttributes().get(Sql.DB_STATUS)).isEqualTo("42P01");
    assertThat(statement.getEvents()).isEmpty();
    assertThat(counted).containsExactly("broken:FAILED");
  }

  @Test
  void a_claim_and_its_writes_are_traced_under_their_own_names() {
    ledger.create(new NewOperation("op-1", "image-v1", "{}"));
    inTrace(
        () -> {
          Lease lease =
              ((ClaimResult.Acquired) ledger.claim("op-1", "worker-a", NextAction.DISPATCH))
                  .lease();
          ledger.markSubmitting(lease);
          return ledger.recordAccepted(lease, "gen_1");
        });

    assertThat(exporter.getFinishedSpanItems())
        .extracting(SpanData::getName)
        .containsExactly(
            "ledger claim", "ledger mark_submitting", "ledger record_accepted", "activity");
  }

  @Test
  void every_ledger_statement_has_a_name_of_its_own() throws Exception {
    List<String> names = new ArrayList<>();
    for (Class<?> holder :
        List.of(
            OperationRecords.class,
            Claims.class,
            LeaseWrites.class,
            DispatchWrites.class,
            RemoteJobWrites.class,
            ReviewWrites.class,
            LifecycleWrites.class,
            LedgerStatistics.class)) {
      for (Field field : holder.getDeclaredFields()) {
        if (Modifier.isStatic(field.getModifiers()) && field.getType() == SqlStatement.class) {
          field.setAccessible(true);
          SqlStatement statement = (SqlStatement) field.get(null);
          assertThat(statement.name())
              .as(holder.getSimpleName() + "." + field.getName())
              .isEqualTo(
                  holder == LedgerStatistics.class
                      ? statement.name()
                      : field.getName().toLowerCase(java.util.Locale.ROOT));
          names.add(statement.name());
        }
      }
    }
    assertThat(names).hasSizeGreaterThan(15).doesNotHaveDuplicates();
  }
}
