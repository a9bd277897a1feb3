package com.genace.activities.genace;

import static com.genace.activities.genace.support.ClientTestSupport.clientFor;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.genace.activities.genace.support.CannedServer;
import com.genace.workflows.model.RemoteStatus;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Bodies that break the contract become a clear {@link MalformedResponseException}. */
class MalformedResponseTest {

  private static final String SHA =
      "abababababababababababababababababababababababababababababababab";

  @ParameterizedTest(name = "{1}")
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '`',
      value = {
        "not json at all | body is not JSON",
        "[1,2] | body is not a JSON object",
        "{} | field 'id' is missing",
        "{\"id\":\"gen_1\"} | field 'status' is missing",
        "{\"id\":7,\"status\":\"queued\"} | field 'id' is not a string",
        "{\"id\":\"gen_2\",\"status\":\"queued\"} | field 'id' is 'gen_2' but 'gen_1' was requested",
        "{\"id\":\"gen_1\",\"status\":\"paused\"} | field 'status' has unknown value 'paused'",
        "{\"id\":\"gen_1\",\"status\":\"QUEUED\"} | field 'status' has unknown value 'QUEUED'",
        "{\"id\":\"gen_1\",\"status\":\"succeeded\"} | field 'outputs' is empty but status is"
            + " 'succeeded'",
        "{\"id\":\"gen_1\",\"status\":\"running\",\"outputs\":{}} | field 'outputs' is not an array",
        "{\"id\":\"gen_1\",\"status\":\"succeeded\",\"outputs\":[{\"content_type\":\"a/b\",\"bytes\":1,"
            + "\"sha256\":\""
            + SHA
            + "\"}]} | field 'outputs[0].url' is missing",
        "{\"id\":\"gen_1\",\"status\":\"succeeded\",\"outputs\":[{\"url\":\"/relative\","
            + "\"content_type\":\"a/b\",\"bytes\":1,\"sha256\":\""
            + SHA
            + "\"}]}"
            + " | field 'outputs[0].url' is not an absolute http(s) URL",
        "{\"id\":\"gen_1\",\"status\":\"succeeded\",\"outputs\":[{\"url\":\"http://h/a\","
            + "\"content_type\":\"a/b\",\"bytes\":\"1\",\"sha256\":\""
            + SHA
            + "\"}]}"
            + " | field 'outputs[0].bytes' is not an integer",
        "{\"id\":\"gen_1\",\"status\":\"succeeded\",\"outputs\":[{\"url\":\"http://h/a\","
            + "\"content_type\":\"a/b\",\"bytes\":-1,\"sha256\":\""
            + SHA
            + "\"}]}"
            + " | field 'outputs[0].bytes' is negative",
        "{\"id\":\"gen_1\",\"status\":\"succeeded\",\"outputs\":[{\"url\":\"http://h/a\","
            + "\"content_type\":\"a/b\",\"bytes\":1,\"sha256\":\"abc\"}]}"
            + " | field 'outputs[0].sha256' is not 64 hex characters",
      })
  void a_snapshot_that_breaks_the_contract_names_what_was_wrong(String body, String problem) {
    try (CannedServer server = CannedServer.answering(200, body)) {
      assertThatThrownBy(() -> clientFor(server.baseUrl()).get("gen_1"))
          .isInstanceOf(MalformedResponseException.class)
          .hasMessage("Genace returned a malformed job snapshot: " + problem);
    }
  }

  @Test
  void unknown_fields_are_ignored_and_sha256_case_is_normalised() {
    String body =
        "{\"id\":\"gen_1\",\"status\":\"succeeded\",\"new_field\":{\"x\":1},\"outputs\":[{"
            + "\"url\":\"https://cdn.example/a\",\"content_type\":\"image/png\",\"bytes\":3,"
            + "\"sha256\":\""
            + SHA.toUpperCase()
            + "\",\"width\":512}]}";
    try (CannedServer server = CannedServer.answering(200, body)) {
      JobSnapshot snapshot = clientFor(server.baseUrl()).get("gen_1");

      assertThat(snapshot.status()).isEqualTo(RemoteStatus.SUCCEEDED);
      assertThat(snapshot.outputs())
          .containsExactly(new JobOutput("https://cdn.example/a", "image/png", 3, SHA));
    }
  }

  @Test
  void a_model_list_in_another_shape_is_malformed() {
    try (CannedServer server = CannedServer.answering(200, "{\"models\":[\"a\"]}")) {
      assertThatThrownBy(() -> clientFor(server.baseUrl()).listModels())
          .isInstanceOf(MalformedResponseException.class)
          .hasMessage("Genace returned a malformed model list: field 'data' is missing");
    }
  }

  @Test
  void an_unexpected_status_on_get_is_a_plain_genace_exception() {
    try (CannedServer server = CannedServer.answering(302, "")) {
      assertThatThrownBy(() -> clientFor(server.baseUrl()).get("gen_1"))
          .isExactlyInstanceOf(GenaceException.class)
          .hasMessage("Genace GET /v1/generations/gen_1 failed: HTTP 302");
    }
  }
}
