package com.genace.ops.bench;

import com.genace.activities.db.Database;
import com.genace.activities.db.DatabaseConfig;
import com.genace.activities.db.DatabaseUrl;
import com.genace.client.connection.TemporalSettings;
import com.genace.ops.Environment;
import com.genace.ops.StartedServices;
import com.genace.ops.db.DbCommand;
import com.genace.ops.dev.TemporalCliServer;
import com.genace.ops.temporal.LocalTemporalServer;
import com.genace.testkit.LoopbackPorts;
import com.genace.testkit.simulator.GenaceSimulator;
import com.genace.worker.temporal.TemporalConnection;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The infrastructure a bench runs on: embedded by default (PostgreSQL with pg_stat_statements, the
 * Temporal test server on a free loopback port, or the real development server for a bench that
 * asks for it with {@link #useTemporalDevServer}, the Genace simulator), or the real services named
 * by {@code DATABASE_URL}, {@code TEMPORAL_ADDRESS} and {@code GENACE_BASE_URL} (which must be a
 * simulator). Ours and the baseline always share them. Closed last started first.
 */
final class BenchServices implements AutoCloseable {

  static final String API_KEY = "bench-key";

  private final StartedServices started;
  private final Environment env;
  private final Consumer<String> progress;
  private String databaseUrl;
  private String temporalAddress;
  private String temporalNamespace = TemporalSettings.DEFAULT_NAMESPACE;
  private TemporalConnection temporal;
  private URI genaceBaseUrl;
  private String genaceApiKey;
  private SimulatorControl simulator;
  private Path temporalCli;
  private boolean temporalFairness;

  BenchServices(Environment env, Consumer<String> progress) {
    this.env = env;
    this.progress = progress;
    this.started = new StartedServices(e -> progress.accept("while stopping: " + e.getMessage()));
  }

  /**
   * Unless {@code TEMPORAL_ADDRESS} names a server, Temporal will be {@code cli}'s development
   * server (headless, in memory, on a free loopback port) instead of the Java test server, which
   * runs inside the bench's own JVM and shares its CPU. Call before anything uses Temporal.
   */
  void useTemporalDevServer(Path cli) {
    useTemporalDevServer(cli, false);
  }

  /** {@link #useTemporalDevServer(Path)}, with task-queue priority and fairness on if asked. */
  void useTemporalDevServer(Path cli, boolean fairness) {
    temporalCli = cli;
    temporalFairness = fairness;
  }

  /** PostgreSQL, migrated; returns its URL as {@code DATABASE_URL} takes it. */
  String database() {
    if (databaseUrl == null) {
      if (env.get("DATABASE_URL").isPresent()) {
        DbCommand.databaseUrl(env); // validates, naming the variable
        databaseUrl = env.require("DATABASE_URL");
        progress.accept("PostgreSQL: DATABASE_URL");
      } else {
        progress.accept("starting PostgreSQL (embedded, with pg_stat_statements)");
        databaseUrl = started.add(BenchDatabase.start()).url();
      }
      try (Database database = open(2)) {
        database.migrate();
      }
    }
    return databaseUrl;
  }

  /** A pool of exactly {@code connections} on the bench's PostgreSQL. */
  Database open(int connections) {
    return Database.open(
        DatabaseConfig.of(DatabaseUrl.parse(database())).withMaxPoolSize(connections));
  }

  TemporalConnection temporal() {
    if (temporal == null) {
      TemporalSettings settings;
      if (env.get(TemporalSettings.ADDRESS).isPresent()) {
        settings = TemporalSettings.fromEnvironment(env.variables());
        progress.accept("Temporal: " + settings);
      } else if (temporalCli != null) {
        settings = startDevServer();
      } else {
        progress.accept("starting Temporal (the Java test server)");
        LocalTemporalServer server = started.add(LocalTemporalServer.start(0));
        settings =
            new TemporalSettings(
                server.address(), LocalTemporalServer.NAMESPACE, false, java.util.Optional.empty());
      }
      temporalAddress = settings.address();
      temporalNamespace = settings.namespace();
      temporal = started.add(TemporalConnection.open(settings));
    }
    return temporal;
  }

  private TemporalSettings startDevServer() {
    int port = LoopbackPorts.free();
    progress.accept(
        "starting Temporal ("
            + temporalCli
            + " server start-dev, headless"
            + (temporalFairness ? ", fairness on" : "")
            + ")");
    Path log;
    try {
      log = Files.createTempFile("genace-bench-temporal-", ".log");
    } catch (IOException e) {
      throw new UncheckedIOException("could not create the Temporal server's log", e);
    }
    // Pushed first, so that it goes after the server has stopped writing to it.
    started.add((AutoCloseable) () -> Files.deleteIfExists(log));
    started.add(TemporalCliServer.startHeadless(temporalCli, port, log, temporalFairness));
    return TemporalSettings.local("127.0.0.1:" + port);
  }

  /** Whether Temporal is a server the bench did not start (and will not throw away). */
  boolean externalTemporal() {
    return env.get(TemporalSettings.ADDRESS).isPresent();
  }

  SimulatorControl simulator() {
    if (simulator == null) {
      if (env.get("GENACE_BASE_URL").isPresent()) {
        genaceBaseUrl = URI.create(env.require("GENACE_BASE_URL"));
        genaceApiKey = env.get("GENACE_API_KEY").orElse(API_KEY);
        progress.accept("Genace simulator: " + genaceBaseUrl);
      } else {
        progress.accept("starting the Genace simulator");
        GenaceSimulator local = started.add(GenaceSimulator.builder().apiKey(API_KEY).start());
        genaceBaseUrl = local.baseUrl();
        genaceApiKey = API_KEY;
      }
      simulator = new SimulatorControl(genaceBaseUrl, genaceApiKey);
    }
    return simulator;
  }

  /**
   * The environment of a worker process on these services. The bench's own {@code GENACE_*}, {@code
   * TEMPORAL_*} and {@code OTEL_*} variables are passed on (so that, for example, {@code
   * GENACE_MAX_OPERATIONS} tunes the worker under test), then the services' addresses replace them.
   */
  Map<String, String> workerEnvironment() {
    database();
    temporal();
    simulator();
    Map<String, String> variables = new LinkedHashMap<>();
    env.variables()
        .forEach(
            (name, value) -> {
              if (name.startsWith("GENACE_")
                  || name.startsWith("TEMPORAL_")
                  || name.startsWith("OTEL_")
                  || name.equals("PATH")
                  || name.equals("HOME")
                  || name.equals("LANG")) {
                variables.put(name, value);
              }
            });
    variables.put("TEMPORAL_ADDRESS", temporalAddress);
    variables.put("TEMPORAL_NAMESPACE", temporalNamespace);
    variables.put("DATABASE_URL", databaseUrl);
    variables.put("GENACE_BASE_URL", genaceBaseUrl.toString());
    variables.put("GENACE_API_KEY", genaceApiKey);
    return variables;
  }

  @Override
  public void close() {
    started.close();
  }
}
