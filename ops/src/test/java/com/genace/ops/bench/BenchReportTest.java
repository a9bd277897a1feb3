package com.genace.ops.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class BenchReportTest {

  @Test
  void the_json_names_the_bench_then_the_fields_in_order_with_unknowns_as_null() {
    BenchReport report =
        new BenchReport("ledger").put("clients", 8).put("ratio", (Double) null).put("x", "y");

    JsonNode json = report.toJson();

    List<String> names = new ArrayList<>();
    json.fieldNames().forEachRemaining(names::add);
    assertThat(names).containsExactly("bench", "clients", "ratio", "x");
    assertThat(json.get("bench").asText()).isEqualTo("ledger");
    assertThat(json.get("clients").isIntegralNumber()).isTrue();
    assertThat(json.get("ratio").isNull()).isTrue();
    assertThat(json.toString()).doesNotContain("\n");
  }

  @Test
  void a_breakdown_is_a_json_object_of_its_own() {
    JsonNode json =
        new BenchReport("e2e")
            .put("actions_by_type", Map.of("ours", Map.of("TIMER_STARTED", 0.5)))
            .toJson();

    assertThat(json.at("/actions_by_type/ours/TIMER_STARTED").asDouble()).isEqualTo(0.5);
  }

  @Test
  void the_text_form_shows_every_field_and_unknowns_as_not_available() {
    StringWriter text = new StringWriter();
    new BenchReport("scale")
        .put("threads", 42L)
        .put("heap_used_mb", (Double) null)
        .printText(new PrintWriter(text, true));

    assertThat(text.toString())
        .contains("bench scale:")
        .containsPattern("threads\\s+42")
        .containsPattern("heap_used_mb\\s+n/a");
  }
}
