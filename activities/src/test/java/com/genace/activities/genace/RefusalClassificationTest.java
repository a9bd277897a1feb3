package com.genace.activities.genace;

import static com.genace.activities.genace.support.ClientTestSupport.clientFor;
import static com.genace.activities.genace.support.ClientTestSupport.request;
import static org.assertj.core.api.Assertions.assertThat;

import com.genace.activities.genace.support.CannedServer;
import com.genace.testkit.simulator.Faults;
import com.genace.testkit.simulator.GenaceSimulator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Which refusals are about the request (the operation fails) and which about the account (it waits
 * behind the fleet-wide circuit); and that no unknown outcome ever becomes a refusal.
 */
class RefusalClassificationTest {

  @ParameterizedTest(name = "{0} {1}")
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '`',
      value = {
        "401 | {\"error\":{\"code\":\"unauthorized\",\"message\":\"revoked\"}} | AUTHENTICATION",
        "401 | <html>nope</html> | AUTHENTICATION",
        "402 | {\"error\":{\"code\":\"insufficient_credits\"}} | CREDITS",
        "402 | `` | CREDITS",
        "403 | {\"error\":{\"code\":\"account_forbidden\"}} | AUTHENTICATION",
        "403 | {\"error\":{\"message\":\"forbidden\"}} | AUTHENTICATION",
        "403 | {\"error\":\"model_forbidden\"} | AUTHENTICATION",
        "403 | not json | AUTHENTICATION",
      })
  void account_refusals_are_told_apart_by_status_and_body(
      int status, String body, AccountProblem problem) {
    try (CannedServer server = CannedServer.answering(status, body)) {
      CreateOutcome outcome = clientFor(server.baseUrl()).create(request("op-account"));

      assertThat(outcome).isInstanceOf(CreateOutcome.AccountRefused.class);
      assertThat(((CreateOutcome.AccountRefused) outcome).problem()).isEqualTo(problem);
      assertThat(((CreateOutcome.AccountRefused) outcome).httpStatus()).isEqualTo(status);
    }
  }

  @ParameterizedTest(name = "{0} {1}")
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '`',
      value = {
        "400 | not json",
        "400 | {\"error\":{\"code\":\"invalid_json\"}}",
        "422 | {\"error\":{\"code\":\"account_forbidden\"}}",
        "422 | ``",
        "403 | {\"error\":{\"code\":\"model_forbidden\",\"message\":\"no video for you\"}}",
        "403 | {\"error\":{\"code\":\"input_forbidden\",\"message\":\"policy\"}}",
      })
  void request_refusals_fail_only_that_request(int status, String body) {
    try (CannedServer server = CannedServer.answering(status, body)) {
      CreateOutcome outcome = clientFor(server.baseUrl()).create(request("op-request"));

      assertThat(outcome).isInstanceOf(CreateOutcome.Refused.class);
      assertThat(((CreateOutcome.Refused) outcome).httpStatus()).isEqualTo(status);
    }
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({"500", "502", "503", "504"})
  void a_server_error_that_names_a_refusal_code_stays_unknown(int status) {
    try (CannedServer server =
        CannedServer.answering(status, "{\"error\":{\"code\":\"insufficient_credits\"}}")) {
      CreateOutcome outcome = clientFor(server.baseUrl()).create(request("op-5xx"));

      assertThat(outcome).isInstanceOf(CreateOutcome.Unknown.class);
    }
  }

  @Test
  void the_simulators_refusals_are_classified_as_the_account_problems_they_stand_for() {
    try (GenaceSimulator simulator = GenaceSimulator.builder().seed(11).start()) {
      HttpGenaceClient client = clientFor(simulator.baseUrl());
      simulator.setFaults(Faults.DEFAULT.withRefuseStatus(402).withRefuseRate(1));
      CreateOutcome broke = client.create(request("op-402"));
      simulator.setFaults(Faults.DEFAULT.withRefuseStatus(403).withRefuseRate(1));
      CreateOutcome barred = client.create(request("op-403"));

      assertThat(broke)
          .isEqualTo(
              new CreateOutcome.AccountRefused(
                  402, AccountProblem.CREDITS, "HTTP 402: the account's credit balance is empty"));
      assertThat(barred)
          .isEqualTo(
              new CreateOutcome.AccountRefused(
                  403,
                  AccountProblem.AUTHENTICATION,
                  "HTTP 403: this account may not use the API"));
      assertThat(broke.describe())
          .isEqualTo(
              "refused for the account (genace_credits_exhausted): HTTP 402: the account's credit"
                  + " balance is empty");
      assertThat(simulator.stats().jobsCreated()).isZero();
    }
  }
}
