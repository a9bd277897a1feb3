package com.genace.testkit.simulator;

import static com.genace.testkit.simulator.support.RawHttp.createBody;
import static com.genace.testkit.simulator.support.RawHttp.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.genace.testkit.simulator.support.RawHttp;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The optional search by operation id, and its switches {@code search_enabled}, {@code lag}. */
class SimulatorSearchTest {

  private GenaceSimulator simulator;
  private RawHttp http;

  @BeforeEach
  void start() {
    simulator = GenaceSimulator.builder().seed(5).start();
    http = new RawHttp(simulator.baseUrl());
  }

  @AfterEach
  void stop() {
    simulator.close();
  }

  private String create(String operationId) {
    return json(http.post("/v1/generations", createBody(operationId))).get("id").asText();
  }

  @Test
  void the_search_lists_the_jobs_carrying_the_operation_id_newest_first() {
    String first = create("op-a");
    String second = create("op-a");
    create("op-b");

    HttpResponse<String> answer = http.get("/v1/generations?operation_id=op-a");

    assertThat(answer.statusCode()).isEqualTo(200);
    JsonNode data = json(answer).get("data");
    assertThat(data).hasSize(2);
    assertThat(data.get(0).get("id").asText()).isEqualTo(second);
    assertThat(data.get(1).get("id").asText()).isEqualTo(first);
    assertThat(data.get(0).get("metadata").get("operation_id").asText()).isEqualTo("op-a");
    assertThat(data.get(0).get("created_at").asText()).isNotBlank();
  }

  @Test
  void a_search_that_is_not_offered_answers_404() {
    simulator.setFaults(Faults.DEFAULT.withSearchEnabled(false));
    create("op-a");

    assertThat(http.get("/v1/generations?operation_id=op-a").statusCode()).isEqualTo(404);
  }

  @Test
  void a_job_appears_in_the_search_only_after_the_lag() {
    simulator.setFaults(Faults.DEFAULT.withSearchLagMs(1500));
    create("op-lag");

    assertThat(json(http.get("/v1/generations?operation_id=op-lag")).get("data")).isEmpty();
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> json(http.get("/v1/generations?operation_id=op-lag")).get("data").size() == 1);
  }

  @Test
  void the_switches_are_set_through_the_faults_endpoint_and_checked() {
    HttpResponse<String> set =
        http.post("/_sim/faults", "{\"search_enabled\":false,\"search_lag_ms\":250}");
    HttpResponse<String> wrong = http.post("/_sim/faults", "{\"search_enabled\":\"no\"}");

    assertThat(set.statusCode()).isEqualTo(200);
    assertThat(simulator.faults().searchEnabled()).isFalse();
    assertThat(simulator.faults().searchLagMs()).isEqualTo(250);
    assertThat(wrong.statusCode()).isEqualTo(400);
    assertThat(wrong.body()).contains("search_enabled must be true or false");
  }
}
