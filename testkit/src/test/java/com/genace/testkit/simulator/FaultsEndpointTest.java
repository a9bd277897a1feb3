package com.genace.testkit.simulator;

import static com.genace.testkit.simulator.support.RawHttp.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.genace.testkit.simulator.support.RawHttp;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code /_sim/faults}: partial, validated, all or nothing. */
class FaultsEndpointTest {

  private GenaceSimulator simulator;
  private RawHttp http;

  @BeforeEach
  void start() {
    simulator = GenaceSimulator.start(0);
    http = new RawHttp(simulator.baseUrl());
  }

  @AfterEach
  void stop() {
    simulator.close();
  }

  @Test
  void the_defaults_are_served() {
    HttpResponse<String> response = http.get("/_sim/faults");

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(json(response)).isEqualTo(Faults.DEFAULT.toJson());
    assertThat(Faults.DEFAULT.jobDurationMs()).isEqualTo(2000);
  }

  @Test
  void given_fields_replace_only_those_fields() {
    http.post("/_sim/faults", "{\"fail_rate\":0.25}");

    HttpResponse<String> response =
        http.post("/_sim/faults", "{\"latency_ms\":40,\"lose_post_response_next\":2}");

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(simulator.faults())
        .isEqualTo(Faults.DEFAULT.withFailRate(0.25).withLatencyMs(40).withLosePostResponseNext(2));
    assertThat(json(response)).isEqualTo(simulator.faults().toJson());
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '`',
      value = {
        "{\"latency_ms\":10,\"chaos\":1} | unknown fault field 'chaos'",
        "{\"job_duration_ms\":-1} | job_duration_ms must be an integer >= 0",
        "{\"job_duration_ms\":1.5} | job_duration_ms must be an integer >= 0",
        "{\"latency_ms\":\"10\"} | latency_ms must be an integer >= 0",
        "{\"fail_rate\":1.01} | fail_rate must be a number between 0 and 1",
        "{\"rate_429\":null} | rate_429 must be a number between 0 and 1",
        "{\"rate_5xx\":-0.1} | rate_5xx must be a number between 0 and 1",
        "{\"lose_post_response_next\":true} | lose_post_response_next must be an integer >= 0",
        "{\"refuse_status\":404} | refuse_status must be one of 401, 402, 403",
        "{\"refuse_status\":\"401\"} | refuse_status must be one of 401, 402, 403",
        "{\"refuse_status\":401.5} | refuse_status must be one of 401, 402, 403",
        "{\"refuse_status\":4294967697} | refuse_status must be one of 401, 402, 403",
        "{\"refuse_status\":402,\"refuse_rate\":2} | refuse_rate must be a number between 0 and 1",
        "[1] | faults must be a JSON object",
        "nope | faults must be a JSON object",
      })
  void an_invalid_request_is_400_naming_the_field_and_changes_nothing(String body, String message) {
    Faults before = simulator.faults();

    HttpResponse<String> response = http.post("/_sim/faults", body);

    assertThat(response.statusCode()).isEqualTo(400);
    assertThat(json(response).at("/error/message").asText()).isEqualTo(message);
    assertThat(simulator.faults()).isEqualTo(before);
  }

  @Test
  void refusals_are_switched_on_and_off_at_run_time() {
    HttpResponse<String> on =
        http.post("/_sim/faults", "{\"refuse_status\":402,\"refuse_rate\":1}");

    assertThat(on.statusCode()).isEqualTo(200);
    assertThat(json(on).get("refuse_status").asInt()).isEqualTo(402);
    assertThat(json(on).get("refuse_rate").asDouble()).isEqualTo(1.0);
    assertThat(simulator.faults())
        .isEqualTo(Faults.DEFAULT.withRefuseStatus(402).withRefuseRate(1));

    http.post("/_sim/faults", "{\"refuse_rate\":0}");

    assertThat(simulator.faults()).isEqualTo(Faults.DEFAULT.withRefuseStatus(402));
  }

  @Test
  void the_java_record_validates_too() {
    assertThatThrownBy(() -> Faults.DEFAULT.withFailRate(2))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("fail_rate must be a number between 0 and 1");
  }
}
