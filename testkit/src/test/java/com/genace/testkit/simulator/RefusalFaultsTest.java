package com.genace.testkit.simulator;

import static com.genace.testkit.simulator.support.RawHttp.createBody;
import static com.genace.testkit.simulator.support.RawHttp.json;
import static org.assertj.core.api.Assertions.assertThat;

import com.genace.testkit.simulator.support.RawHttp;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@code refuse_status} and {@code refuse_rate}: a revoked key, a barred account, no credits. */
class RefusalFaultsTest {

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

  @Test
  void a_revoked_key_refuses_creates_and_reads_with_401_and_creates_nothing() {
    String job = json(http.post("/v1/generations", createBody("op-before"))).get("id").asText();
    simulator.setFaults(Faults.DEFAULT.withRefuseStatus(401).withRefuseRate(1));

    HttpResponse<String> create = http.post("/v1/generations", createBody("op-revoked"));

    assertThat(create.statusCode()).isEqualTo(401);
    assertThat(json(create).at("/error/code").asText()).isEqualTo("unauthorized");
    assertThat(http.get("/v1/models").statusCode()).isEqualTo(401);
    assertThat(http.get("/v1/generations/" + job).statusCode()).isEqualTo(401);
    assertThat(simulator.jobsForOperation("op-revoked")).isEmpty();
    assertThat(simulator.stats().postsFor("op-revoked")).isEqualTo(1);
  }

  @Test
  void a_barred_account_is_403_with_a_code_that_names_the_account() {
    simulator.setFaults(Faults.DEFAULT.withRefuseStatus(403).withRefuseRate(1));

    HttpResponse<String> create = http.post("/v1/generations", createBody("op-barred"));

    assertThat(create.statusCode()).isEqualTo(403);
    assertThat(json(create).at("/error/code").asText()).isEqualTo("account_forbidden");
    assertThat(http.get("/v1/models").statusCode()).isEqualTo(403);
    assertThat(simulator.jobsForOperation("op-barred")).isEmpty();
  }

  @Test
  void an_empty_balance_refuses_creates_with_402_but_reads_stay_free() {
    String job = json(http.post("/v1/generations", createBody("op-before"))).get("id").asText();
    simulator.setFaults(Faults.DEFAULT.withRefuseStatus(402).withRefuseRate(1));

    HttpResponse<String> create = http.post("/v1/generations", createBody("op-broke"));

    assertThat(create.statusCode()).isEqualTo(402);
    assertThat(json(create).at("/error/code").asText()).isEqualTo("insufficient_credits");
    assertThat(http.get("/v1/models").statusCode()).isEqualTo(200);
    assertThat(http.get("/v1/generations/" + job).statusCode()).isEqualTo(200);
    assertThat(simulator.jobsForOperation("op-broke")).isEmpty();
  }

  @Test
  void an_invalid_request_is_still_422_when_the_balance_is_empty() {
    simulator.setFaults(Faults.DEFAULT.withRefuseStatus(402).withRefuseRate(1));

    HttpResponse<String> create =
        http.post(
            "/v1/generations",
            "{\"model\":\"image-v1\",\"input\":{\"prompt\":42},\"metadata\":{\"operation_id\":\"op-bad\"}}");

    assertThat(create.statusCode()).isEqualTo(422);
    assertThat(json(create).at("/error/message").asText())
        .isEqualTo("field 'input.prompt' must be a string");
  }

  @Test
  void a_refuse_status_without_a_rate_refuses_nothing() {
    simulator.setFaults(Faults.DEFAULT.withRefuseStatus(402));

    assertThat(http.post("/v1/generations", createBody("op-fine")).statusCode()).isEqualTo(201);
  }

  @Test
  void the_rate_refuses_about_that_share_of_creates() {
    simulator.setFaults(Faults.DEFAULT.withRefuseStatus(402).withRefuseRate(0.5));

    int refused = 0;
    for (int i = 0; i < 200; i++) {
      if (http.post("/v1/generations", createBody("op-" + i)).statusCode() == 402) {
        refused++;
      }
    }

    assertThat(refused).isBetween(60, 140);
    assertThat(simulator.stats().jobsCreated()).isEqualTo(200 - refused);
  }
}
