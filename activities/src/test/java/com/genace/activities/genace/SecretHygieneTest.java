package com.genace.activities.genace;

import static com.genace.activities.genace.support.ClientTestSupport.API_KEY;
import static com.genace.activities.genace.support.ClientTestSupport.clientFor;
import static com.genace.activities.genace.support.ClientTestSupport.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.genace.activities.genace.support.CannedServer;
import com.genace.testkit.simulator.Faults;
import com.genace.testkit.simulator.GenaceSimulator;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The API key never shows up in a message, a reason or a {@code toString()}. */
class SecretHygieneTest {

  @Test
  void the_key_appears_in_no_outcome_exception_or_configuration_text() {
    List<String> texts = new ArrayList<>();
    try (GenaceSimulator simulator = GenaceSimulator.builder().apiKey("sk-other").start()) {
      HttpGenaceClient client = clientFor(simulator.baseUrl(), API_KEY, Duration.ofMillis(300));
      texts.add(client.config().toString());
      texts.add(client.create(request("op-refused")).toString());
      texts.add(client.create(request("op-refused")).describe());
      texts.add(describe(catchThrowable(() -> client.get("gen_1"))));
      texts.add(describe(catchThrowable(client::listModels)));
      simulator.setFaults(Faults.DEFAULT.withLatencyMs(2_000));
      texts.add(client.create(request("op-slow")).toString());
      texts.add(describe(catchThrowable(() -> client.get("gen_1"))));
    }
    HttpGenaceClient nobody = clientFor(URI.create("http://127.0.0.1:1"));
    texts.add(nobody.create(request("op-nobody")).toString());
    texts.add(describe(catchThrowable(() -> nobody.get("gen_1"))));

    assertThat(texts).hasSize(9).allSatisfy(text -> assertThat(text).doesNotContain(API_KEY));
  }

  @Test
  void a_server_that_echoes_the_key_has_it_masked_in_the_reason_and_the_exception() {
    String echo = "{\"error\":{\"message\":\"key " + API_KEY + " has no credits\"}}";
    try (CannedServer server = CannedServer.answering(402, echo)) {
      CreateOutcome outcome = clientFor(server.baseUrl()).create(request("op-echo"));

      assertThat(outcome)
          .isEqualTo(
              new CreateOutcome.AccountRefused(
                  402, AccountProblem.CREDITS, "HTTP 402: key *** has no credits"));
    }
    try (CannedServer server = CannedServer.answering(403, echo)) {
      Throwable thrown = catchThrowable(() -> clientFor(server.baseUrl()).get("gen_1"));

      assertThat(thrown)
          .isInstanceOf(GenaceAuthenticationException.class)
          .hasMessageContaining("key *** has no credits");
    }
  }

  @Test
  void a_malformed_snapshot_that_echoes_the_key_has_it_masked() {
    try (CannedServer server =
        CannedServer.answering(200, "{\"id\":\"gen_1\",\"status\":\"" + API_KEY + "\"}")) {
      Throwable thrown = catchThrowable(() -> clientFor(server.baseUrl()).get("gen_1"));

      assertThat(thrown)
          .isInstanceOf(MalformedResponseException.class)
          .hasMessage(
              "Genace returned a malformed job snapshot: field 'status' has unknown value '***'");
    }
  }

  private static String describe(Throwable thrown) {
    assertThat(thrown).isNotNull();
    StringBuilder text = new StringBuilder();
    for (Throwable t = thrown; t != null; t = t.getCause()) {
      text.append(t).append('\n');
    }
    return text.toString();
  }
}
