package com.genace.ops;

import static org.assertj.core.api.Assertions.assertThat;

import com.genace.ops.support.CliRunner;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

class SimulatorCommandTest {

  @Test
  void the_simulator_serves_until_interrupted_and_then_frees_its_port() throws Exception {
    StringWriter out = new StringWriter();
    AtomicInteger exit = new AtomicInteger(-1);
    Thread command =
        new Thread(
            () ->
                exit.set(
                    GenaceCli.execute(
                        new Environment(Map.of()),
                        new PrintWriter(out, true),
                        new PrintWriter(new StringWriter(), true),
                        "simulator",
                        "--port",
                        "0")));
    command.start();
    Pattern listening = Pattern.compile("listening on (http://127\\.0\\.0\\.1:\\d+)");
    Awaitility.await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> listening.matcher(out.toString()).find());
    Matcher matcher = listening.matcher(out.toString());
    assertThat(matcher.find()).isTrue();
    URI stats = URI.create(matcher.group(1) + "/_sim/stats");
    HttpClient http = HttpClient.newHttpClient();

    HttpResponse<String> response =
        http.send(HttpRequest.newBuilder(stats).build(), HttpResponse.BodyHandlers.ofString());
    command.interrupt();
    command.join(10_000);

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.body()).contains("\"posts_total\":0");
    assertThat(out.toString())
        .contains("any non-blank bearer token is accepted")
        .contains("/_sim/faults")
        .contains("Press Ctrl-C to stop.");
    assertThat(exit.get()).isZero();
    Awaitility.await()
        .atMost(Duration.ofSeconds(5))
        .untilAsserted(
            () ->
                org.assertj.core.api.Assertions.assertThatThrownBy(
                        () ->
                            http.send(
                                HttpRequest.newBuilder(stats).build(),
                                HttpResponse.BodyHandlers.ofString()))
                    .isInstanceOf(ConnectException.class));
  }

  @Test
  void an_invalid_port_is_a_usage_error() {
    CliRunner.Result result = CliRunner.run(Map.of(), "simulator", "--port", "70000");

    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err()).contains("--port must be between 0 and 65535");
  }
}
