package com.genace.ops.dev;

import com.genace.worker.temporal.SearchAttributes;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The real Temporal development server ({@code temporal server start-dev}, with its Web UI, or
 * headless for a bench) as a child process on 127.0.0.1, with the workflow's search attributes,
 * stopped on close.
 *
 * <ol>
 *   <li>start the server, its output going to a log file;
 *   <li>ask {@code temporal operator cluster health} until it answers SERVING, within {@link
 *       #STARTUP_TIMEOUT}; fail with the log's tail if the server exits or the time runs out.
 * </ol>
 */
public final class TemporalCliServer implements AutoCloseable {

  static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(60);

  private final Process process;
  private final Integer uiPort;

  private TemporalCliServer(Process process, Integer uiPort) {
    this.process = process;
    this.uiPort = uiPort;
  }

  /** With the Web UI on {@code uiPort}, decoding payloads through {@code codecEndpoint} if any. */
  static TemporalCliServer start(
      Path cli, int port, int uiPort, Optional<String> codecEndpoint, Path log) {
    return launch(cli, port, uiPort, codecEndpoint, true, log);
  }

  /** Without the Web UI (in memory, as every dev server here): for a bench, which needs no UI. */
  public static TemporalCliServer startHeadless(Path cli, int port, Path log) {
    return startHeadless(cli, port, log, false);
  }

  /**
   * Headless, with task-queue priority and fairness honoured as {@link #start} has them when {@code
   * fairness} is true: for {@code bench fair}, which measures them.
   */
  public static TemporalCliServer startHeadless(Path cli, int port, Path log, boolean fairness) {
    return launch(cli, port, null, Optional.empty(), fairness, log);
  }

  /** With the Web UI on {@code uiPort}, or headless when it is null. */
  private static TemporalCliServer launch(
      Path cli,
      int port,
      Integer uiPort,
      Optional<String> codecEndpoint,
      boolean fairness,
      Path log) {
    List<String> command = new ArrayList<>();
    command.addAll(
        List.of(
            cli.toString(),
            "server",
            "start-dev",
            "--ip",
            "127.0.0.1",
            "--port",
            Integer.toString(port)));
    if (uiPort == null) {
      command.add("--headless");
    } else {
      command.addAll(List.of("--ui-port", Integer.toString(uiPort), "--ui-disable-news-fetch"));
      codecEndpoint.ifPresent(endpoint -> command.addAll(List.of("--ui-codec-endpoint", endpoint)));
    }
    for (Map.Entry<String, ?> attribute : SearchAttributes.ALL.entrySet()) {
      command.add("--search-attribute");
      command.add(attribute.getKey() + "=" + cliType(attribute.getValue().toString()));
    }
    if (fairness) {
      // Task-queue priority and fairness between accounts (docs/deployment.md): the operations'
      // priority keys and fairness keys are honoured, not only recorded.
      command.addAll(
          List.of(
              "--dynamic-config-value",
              "matching.useNewMatcher=true",
              "--dynamic-config-value",
              "matching.enableFairness=true"));
    }
    // No calls home from a local development server.
    command.addAll(List.of("--dynamic-config-value", "frontend.enableServerVersionCheck=false"));
    Process process;
    try {
      process =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(log.toFile())
              .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))
              .start();
    } catch (IOException e) {
      throw new UncheckedIOException("could not run " + cli + ": " + e.getMessage(), e);
    }
    TemporalCliServer server = new TemporalCliServer(process, uiPort);
    try {
      server.awaitHealthy(cli, "127.0.0.1:" + port, log);
    } catch (RuntimeException e) {
      server.close();
      throw e;
    }
    return server;
  }

  String webUi() {
    return "http://127.0.0.1:" + uiPort;
  }

  private void awaitHealthy(Path cli, String address, Path log) {
    long deadline = System.nanoTime() + STARTUP_TIMEOUT.toNanos();
    while (true) {
      if (!process.isAlive()) {
        throw new IllegalStateException(
            "temporal server start-dev exited with "
                + process.exitValue()
                + " during startup; its log ("
                + log
                + ") ends with: "
                + tail(log));
      }
      if (healthy(cli, address)) {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "temporal server start-dev did not become healthy on "
                + address
                + " within "
                + STARTUP_TIMEOUT.toSeconds()
                + " s; its log ends with: "
                + tail(log));
      }
      sleep(Duration.ofMillis(300));
    }
  }

  private static boolean healthy(Path cli, String address) {
    try {
      Process check =
          new ProcessBuilder(
                  cli.toString(),
                  "operator",
                  "cluster",
                  "health",
                  "--address",
                  address,
                  "--command-timeout",
                  "2s")
              .redirectErrorStream(true)
              .start();
      String output = new String(check.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!check.waitFor(10, TimeUnit.SECONDS)) {
        check.destroyForcibly();
        return false;
      }
      return check.exitValue() == 0 && output.contains("SERVING");
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for Temporal", e);
    }
  }

  private static String cliType(String indexedValueType) {
    return switch (indexedValueType) {
      case "INDEXED_VALUE_TYPE_KEYWORD" -> "Keyword";
      case "INDEXED_VALUE_TYPE_BOOL" -> "Bool";
      case "INDEXED_VALUE_TYPE_INT" -> "Int";
      default -> throw new IllegalArgumentException("no CLI name for " + indexedValueType);
    };
  }

  private static String tail(Path log) {
    try {
      List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
      return String.join(" / ", lines.subList(Math.max(0, lines.size() - 5), lines.size()));
    } catch (IOException e) {
      return "(unreadable: " + e.getMessage() + ")";
    }
  }

  private static void sleep(Duration duration) {
    try {
      Thread.sleep(duration.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for Temporal", e);
    }
  }

  /** Stops the server (SIGTERM, then SIGKILL if it lingers). */
  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
  }

  @Override
  public String toString() {
    return "temporal server start-dev (pid " + process.pid() + ")";
  }
}
