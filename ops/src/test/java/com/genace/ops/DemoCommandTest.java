package com.genace.ops;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.genace.ops.support.CliRunner;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DemoCommandTest {

  @Test
  void the_demo_runs_end_to_end_and_ends_with_consistent_json() throws Exception {
    CliRunner.Result result = CliRunner.run(Map.of(), "demo", "--operations", "5", "--json");

    assertThat(result.exitCode()).as(result.err()).isZero();
    List<String> lines = result.out().lines().toList();
    JsonNode json = new ObjectMapper().readTree(lines.get(lines.size() - 1));
    assertThat(json.get("operations").asInt()).isEqualTo(5);
    assertThat(
            json.get("delivered").asInt()
                + json.get("failed").asInt()
                + json.get("abandoned").asInt())
        .isEqualTo(5);
    assertThat(json.get("duplicate_posts").asInt()).isZero();
    assertThat(json.get("duplicate_renders").asInt()).isZero();
    assertThat(json.get("uncertain_opened").asInt()).isGreaterThanOrEqualTo(4);
    assertThat(json.get("uncertain_resolved").asInt())
        .isEqualTo(json.get("uncertain_opened").asInt());
    // The three lost responses with the search offered settle themselves; the first needs a
    // person (and a 503 may add another for the operator).
    assertThat(json.get("uncertain_self_settled").asInt()).isEqualTo(3);
    assertThat(json.get("uncertain_resolved").asInt() - json.get("uncertain_self_settled").asInt())
        .isGreaterThanOrEqualTo(1);
    assertThat(json.get("posts_sent").asInt()).isGreaterThanOrEqualTo(5);
    assertThat(json.get("responses_lost").asInt()).isEqualTo(4);
    assertThat(json.get("elapsed_ms").asLong()).isPositive();
    assertThat(result.err()).contains("review: demo-").contains("5/5 ended");
  }

  @Test
  void the_number_of_operations_is_bounded() {
    CliRunner.Result result = CliRunner.run(Map.of(), "demo", "--operations", "0");

    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err()).contains("--operations must be between 1 and 1000");
  }
}
