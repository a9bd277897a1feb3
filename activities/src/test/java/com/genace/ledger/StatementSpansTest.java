package com.genace.ledger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.genace.testing.DatabaseExtension;
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
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Inside a trace, each ledger statement is a span named by what it does, without its values. */
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
  private Jdbc jdbc;

  @BeforeEach
  void setUp(DataSource dataSource) {
    jdbc = new Jdbc(dataSource, sdk);
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
    inTrace(
        () ->
            jdbc.query(LedgerStatements.FIND, List.of("op-private-value"), rs -> rs.getString(1)));

    List<SpanData> spans = exporter.getFinishedSpanItems();
    assertThat(spans).extracting(SpanData::getName).containsExactly("ledger find", "activity");
    SpanData statement = spans.get(0);
    assertThat(statement.getParentSpanId()).isEqualTo(spans.get(1).getSpanId());
    assertThat(statement.getAttributes().get(Jdbc.DB_SYSTEM)).isEqualTo("postgresql");
    assertThat(statement.getAttributes().get(Jdbc.DB_TEXT)).isEqualTo(LedgerStatements.FIND);
    assertThat(statement.getAttributes().get(Jdbc.DB_ROWS)).isZero();
    statement
        .getAttributes()
        .forEach((key, value) -> assertThat(value.toString()).doesNotContain("op-private-value"));
  }

  @Test
  void a_statement_outside_any_trace_records_no_span() {
    jdbc.query(LedgerStatements.COUNT_BY_PHASE, List.of(), rs -> rs.getString(1));

    assertThat(exporter.getFinishedSpanItems()).isEmpty();
  }

  @Test
  void a_failed_statement_is_an_error_span_with_its_sql_state_and_not_the_driver_message() {
    Throwable thrown =
        inTrace(
            () ->
                catchThrowable(
                    () ->
                        jdbc.query(
                            "SELECT * FROM no_such_table WHERE id = ?",
                            List.of("op-private-value"),
                            rs -> rs.getString(1))));

    assertThat(thrown).isInstanceOf(LedgerException.class);
    SpanData statement = exporter.getFinishedSpanItems().get(0);
    assertThat(statement.getName()).isEqualTo("ledger select");
    assertThat(statement.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
    assertThat(statement.getAttributes().get(Jdbc.DB_STATUS)).isEqualTo("42P01");
    assertThat(statement.getEvents()).isEmpty();
  }

  @Test
  void every_ledger_statement_has_a_name_of_its_own() throws Exception {
    List<String> names = new ArrayList<>();
    for (Field field : LedgerStatements.class.getDeclaredFields()) {
      if (!Modifier.isStatic(field.getModifiers()) || Modifier.isPrivate(field.getModifiers())) {
        continue;
      }
      Object statement = field.get(null);
      String sql = statement instanceof FencedWrite write ? write.sql() : statement.toString();
      names.add(StatementNames.of(sql));
      assertThat(StatementNames.of(sql))
          .as(field.getName())
          .isEqualTo(field.getName().toLowerCase(java.util.Locale.ROOT));
    }
    assertThat(names).hasSizeGreaterThan(10).doesNotHaveDuplicates();
  }
}
