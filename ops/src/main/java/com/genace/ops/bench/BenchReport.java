package com.genace.ops.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A bench's figures, in the order they were put: its headline figures first, then what helps to
 * read them. Printed as one JSON object (for {@code --json}) or as aligned lines.
 */
final class BenchReport {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final String bench;
  private final Map<String, Object> figures = new LinkedHashMap<>();

  BenchReport(String bench) {
    this.bench = bench;
  }

  /** A number, or null when it could not be measured (printed as JSON null). */
  BenchReport put(String field, Number value) {
    figures.put(field, value);
    return this;
  }

  BenchReport put(String field, String value) {
    figures.put(field, value);
    return this;
  }

  /** A breakdown, printed as a JSON object (its values numbers, strings or breakdowns again). */
  BenchReport put(String field, Map<String, ?> value) {
    figures.put(field, value);
    return this;
  }

  /** A list, printed as a JSON array (of numbers, strings or breakdowns). */
  BenchReport put(String field, java.util.List<?> value) {
    figures.put(field, value);
    return this;
  }

  Object get(String field) {
    return figures.get(field);
  }

  ObjectNode toJson() {
    ObjectNode json = JSON.createObjectNode();
    json.put("bench", bench);
    figures.forEach((field, value) -> json.set(field, JSON.valueToTree(value)));
    return json;
  }

  void printText(PrintWriter out) {
    out.println("bench " + bench + ":");
    int width = figures.keySet().stream().mapToInt(String::length).max().orElse(0);
    figures.forEach(
        (field, value) ->
            out.printf("  %-" + width + "s  %s%n", field, value == null ? "n/a" : value));
  }
}
