package com.genace.ops;

import static org.assertj.core.api.Assertions.assertThat;

import com.genace.activities.testing.DatabaseExtension;
import com.genace.activities.testing.TestDatabase;
import com.genace.client.model.Phase;
import com.genace.ops.support.CliRunner;
import com.genace.ops.support.TestStack;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

@ExtendWith(DatabaseExtension.class)
class DevCommandTest {

  private static final Pattern EXPORT = Pattern.compile("(?m)^export (\\w+)=(\\S+)");

  @TempDir Path artifacts;

  @Test
  void dev_prints_exports_that_a_second_terminal_can_submit_and_inspect_with() throws Exception {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    AtomicInteger exit = new AtomicInteger(-1);
    Map<String, String> devEnv =
        Map.of("DATABASE_URL", TestDatabase.databaseUrlValue(), "PATH", "/nonexistent");
    Thread dev =
        new Thread(
            () ->
                exit.set(
                    GenaceCli.execute(
                        new Environment(devEnv),
                        new PrintWriter(out, true),
                        new PrintWriter(err, true),
                        "dev",
                        "--test-server",
                        "--temporal-port",
                        "0",
                        "--simulator-port",
                        "0")));
    dev.start();
    Awaitility.await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> out.toString().contains("Press Ctrl-C") || exit.get() != -1);
    assertThat(exit.get()).as(err.toString()).isEqualTo(-1);
    Map<String, String> exports = new HashMap<>();
    Matcher matcher = EXPORT.matcher(out.toString());
    while (matcher.find()) {
      exports.put(matcher.group(1), matcher.group(2));
    }

    assertThat(exports)
        .containsKeys(
            "TEMPORAL_ADDRESS",
            "TEMPORAL_NAMESPACE",
            "DATABASE_URL",
            "GENACE_BASE_URL",
            "GENACE_API_KEY",
            "GENACE_ARTIFACT_DIR");
    assertThat(exports.get("TEMPORAL_ADDRESS")).startsWith("127.0.0.1:");
    assertThat(Files.isDirectory(Path.of(exports.get("GENACE_ARTIFACT_DIR")))).isTrue();
    assertThat(out.toString()).contains("Java test server: in memory, no Web UI, no Schedules");
    assertThat(out.toString()).doesNotContain("TEMPORAL_UI");
    HttpResponse<String> models =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create(exports.get("GENACE_BASE_URL") + "/v1/models"))
                    .header("Authorization", "Bearer " + exports.get("GENACE_API_KEY"))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(models.statusCode()).isEqualTo(200);

    // The workflow upserts the search attributes: it only runs if dev registered them.
    try (TestStack workers = new TestStack(exports.get("TEMPORAL_ADDRESS"), artifacts)) {
      Map<String, String> second = new HashMap<>(exports);
      second.put("DATABASE_URL", TestDatabase.databaseUrlValue());
      CliRunner.Result submitted =
          CliRunner.run(
              second,
              "submit",
              "--model",
              "image-v1",
              "--input",
              "{}",
              "--operation-id",
              "via-dev");
      assertThat(submitted.exitCode()).as(submitted.err()).isZero();
      workers.awaitPhase("via-dev", Phase.DELIVERED);
      CliRunner.Result listed = CliRunner.run(second, "ops", "list");
      assertThat(listed.out()).contains("via-dev").contains("delivered");
    } finally {
      dev.interrupt();
      dev.join(15_000);
    }
    assertThat(exit.get()).isZero();
  }

  @Test
  void a_temporal_cli_that_is_not_executable_names_the_variable() {
    CliRunner.Result result =
        CliRunner.run(
            Map.of("GENACE_TEMPORAL_CLI", "/nonexistent/temporal"), "dev", "--temporal-port", "0");

    assertThat(result.exitCode()).isEqualTo(1);
    assertThat(result.err())
        .isEqualTo(
            "genace: error: GENACE_TEMPORAL_CLI does not name an executable file:"
                + " /nonexistent/temporal\n");
  }
}
