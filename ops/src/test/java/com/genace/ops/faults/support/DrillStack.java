package com.genace.ops.faults.support;

import com.genace.client.GenerationClient;
import com.genace.client.GenerationRequest;
import com.genace.client.connection.TemporalSettings;
import com.genace.ops.support.CliRunner;
import com.genace.testkit.simulator.Faults;
import com.genace.testkit.simulator.GenaceSimulator;
import com.genace.worker.temporal.TemporalConnection;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Everything one drill runs against, each a process or a server of its own: a PostgreSQL server
 * (schema applied by {@code genace db migrate}), the real Temporal dev server, the Genace
 * simulator, an artifact directory, and the worker processes the drill starts and abuses.
 *
 * <p>Leases are short ({@value #LEASE_SECONDS} s) so that takeovers come quickly; everything is
 * kept under {@code target/fault-drills/<drill>} for the post-mortem.
 */
public final class DrillStack implements AutoCloseable {

  public static final String API_KEY = "drill-key";
  public static final String STATUS_TOKEN = "drill-status-token";
  public static final int LEASE_SECONDS = 10;
  public static final int READ_TIMEOUT_SECONDS = 3;

  /** How long a POST may take before the workflow counts its outcome as unknown. */
  public static final int DISPATCH_TIMEOUT_SECONDS = 12;

  public final String drill;
  public final long seed;
  public final Path dir;
  public final Path artifacts;
  public final PostgresServer postgres;
  public final TemporalDevServer temporal;
  public final GenaceSimulator simulator;
  public final SimulatorControl simulatorControl;
  public final LedgerView ledger;
  public final GenerationClient client;
  public final TemporalConnection connection;

  private final Set<String> operations = new LinkedHashSet<>();
  private final List<DrillWorker> workers = new ArrayList<>();

  /** Notes the rows' revisions twice a second, for {@link LedgerView#staleWritesApplied}. */
  private final ScheduledExecutorService revisionWatch =
      Executors.newSingleThreadScheduledExecutor(
          task -> {
            Thread thread = new Thread(task, "revision-watch");
            thread.setDaemon(true);
            return thread;
          });

  private DrillStack(String drill, long seed, Release release, Map<String, String> temporalConfig)
      throws IOException, InterruptedException {
    this.drill = drill;
    this.seed = seed;
    this.dir = Path.of("target", "fault-drills", drill).toAbsolutePath();
    deleteRecursively(dir);
    Files.createDirectories(dir);
    this.artifacts = Files.createDirectories(dir.resolve("artifacts"));
    // The two servers start side by side: each takes seconds on a busy machine.
    CompletableFuture<TemporalDevServer> temporalStarting =
        CompletableFuture.supplyAsync(() -> startTemporal(dir.resolve("temporal"), temporalConfig));
    PostgresServer startedPostgres = null;
    try {
      startedPostgres = PostgresServer.create(dir.resolve("postgres"));
      if (release.equals(Release.CURRENT)) {
        migrate(startedPostgres.url());
      } else {
        release.run(
            Map.of("DATABASE_URL", startedPostgres.url()),
            dir.resolve("db-migrate-" + release.version() + ".log"),
            "db",
            "migrate");
      }
      this.temporal = temporalStarting.join();
    } catch (IOException | InterruptedException | RuntimeException e) {
      // Nothing a failed start began may outlive it: wait for the server still starting and stop
      // it (a callback on the future would not run if the test JVM exited first).
      if (startedPostgres != null) {
        closeQuietly(startedPostgres);
      }
      try {
        closeQuietly(temporalStarting.join());
      } catch (RuntimeException temporalFailed) {
        if (temporalFailed != e) {
          e.addSuppressed(temporalFailed);
        }
      }
      throw e;
    }
    this.postgres = startedPostgres;
    this.ledger = new LedgerView(postgres);
    revisionWatch.scheduleWithFixedDelay(this::noteRevisions, 0, 500, TimeUnit.MILLISECONDS);
    this.simulator =
        GenaceSimulator.builder()
            .apiKey(API_KEY)
            .seed(seed)
            .faults(Faults.DEFAULT.withJobDurationMs(1500))
            .start();
    this.simulatorControl = new SimulatorControl(simulator.baseUrl());
    this.connection =
        TemporalConnection.open(
            new TemporalSettings(temporal.address(), "default", false, Optional.empty()));
    this.client = connection.generationClient();
  }

  /** Starts the stack for a drill; {@code seed} decides every random choice the drill makes. */
  public static DrillStack start(String drill, long seed) throws IOException, InterruptedException {
    System.out.printf("drill %s: seed %d%n", drill, seed);
    return new DrillStack(drill, seed, Release.CURRENT, Map.of());
  }

  /**
   * Starts the stack with the ledger's schema applied by {@code release}'s {@code db migrate}, and
   * the Temporal dev server with more of its dynamic configuration.
   */
  public static DrillStack start(
      String drill, long seed, Release release, Map<String, String> temporalConfig)
      throws IOException, InterruptedException {
    System.out.printf("drill %s: seed %d%n", drill, seed);
    return new DrillStack(drill, seed, release, temporalConfig);
  }

  private static void closeQuietly(AutoCloseable closeable) {
    try {
      closeable.close();
    } catch (Exception e) {
      // a drill that could not start reports that, not this
    }
  }

  private static TemporalDevServer startTemporal(Path dir, Map<String, String> config) {
    try {
      return TemporalDevServer.start(dir, config);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static void migrate(String databaseUrl) {
    CliRunner.Result migrated = CliRunner.run(Map.of("DATABASE_URL", databaseUrl), "db", "migrate");
    if (migrated.exitCode() != 0) {
      throw new IllegalStateException(
          "genace db migrate exited "
              + migrated.exitCode()
              + ": "
              + migrated.out()
              + migrated.err());
    }
  }

  /** A worker's environment, as an operator would write it; a drill may change any of it. */
  public Map<String, String> workerEnvironment() {
    Map<String, String> env = new HashMap<>();
    env.put("TEMPORAL_ADDRESS", temporal.address());
    env.put("DATABASE_URL", postgres.url());
    env.put("GENACE_BASE_URL", simulator.baseUrl().toString());
    env.put("GENACE_API_KEY", API_KEY);
    env.put("GENACE_ARTIFACT_DIR", artifacts.toString());
    env.put("GENACE_LEASE_SECONDS", Integer.toString(LEASE_SECONDS));
    env.put("GENACE_READ_TIMEOUT_SECONDS", Integer.toString(READ_TIMEOUT_SECONDS));
    env.put("GENACE_DRAIN_SECONDS", "2");
    env.put("GENACE_STATUS_TOKEN", STATUS_TOKEN);
    return env;
  }

  public DrillWorker startWorker(String name) throws IOException {
    return startWorker(name, workerEnvironment());
  }

  public DrillWorker startWorker(String name, Map<String, String> env) throws IOException {
    return startWorker(name, env, Release.CURRENT);
  }

  /** A worker of another release. */
  public DrillWorker startWorker(String name, Map<String, String> env, Release release)
      throws IOException {
    DrillWorker worker = DrillWorker.start(name, env, dir.resolve(name + ".log"), release);
    workers.add(worker);
    return worker;
  }

  /**
   * Makes the directory under which artifacts are stored ({@code generations/}) refuse writes, or
   * accept them again; the store's staging directory stays writable, so workers still start. Needs
   * an unprivileged user (as CI runs the drills): root writes anyway.
   */
  public void artifactStoreWritable(boolean writable) throws IOException {
    Path stored = Files.createDirectories(artifacts.resolve("generations"));
    Files.setPosixFilePermissions(
        stored, PosixFilePermissions.fromString(writable ? "rwxr-xr-x" : "r-xr-xr-x"));
    if (Files.isWritable(stored) != writable) {
      throw new IllegalStateException(
          stored + " cannot be made read-only: run the drills as an unprivileged user");
    }
  }

  /**
   * Runs an {@code ops} or {@code db} command of {@code release}'s CLI against this stack's ledger
   * and Temporal server, as an operator would; its output goes to {@code <command>.log} too.
   *
   * @return what it printed
   */
  public String cli(Release release, String... args) throws IOException, InterruptedException {
    return release.run(
        Map.of("DATABASE_URL", postgres.url(), "TEMPORAL_ADDRESS", temporal.address()),
        dir.resolve("cli-" + release.version() + ".log"),
        args);
  }

  /** Starts operation {@code <drill>-<name>} of this model; returns its id. */
  public String startOperation(String name, String model) {
    String id = drill + "-" + name;
    client.start(
        new GenerationRequest(
            id, model, "{\"prompt\":\"drill " + id + "\"}", DISPATCH_TIMEOUT_SECONDS));
    operations.add(id);
    return id;
  }

  /** Starts operations {@code <drill>-<first>...}; returns their ids. */
  public List<String> startOperations(int count) {
    List<String> started = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      String id = drill + "-" + (operations.size() + 1);
      client.start(
          new GenerationRequest(
              id, "image-v1", "{\"prompt\":\"drill " + id + "\"}", DISPATCH_TIMEOUT_SECONDS));
      operations.add(id);
      started.add(id);
    }
    return started;
  }

  /** How many operations the ledger shows in this phase (0 while it cannot be read). */
  public long phaseCount(String phase) {
    try {
      return ledger.operations().values().stream().filter(op -> op.phase().equals(phase)).count();
    } catch (java.sql.SQLException e) {
      return 0;
    }
  }

  /** {@link LedgerView#noteRevisions}, skipped while the ledger cannot be read. */
  public void noteRevisions() {
    try {
      ledger.noteRevisions();
    } catch (java.sql.SQLException e) {
      // the drill's fault may be the ledger itself: the next look will do
    }
  }

  /** The operation's ledger row, if it exists and the ledger can be read. */
  public Optional<LedgerView.Operation> operation(String id) {
    try {
      return Optional.ofNullable(ledger.operations().get(id));
    } catch (java.sql.SQLException e) {
      return Optional.empty();
    }
  }

  /** Whether the operation is in this phase now. */
  public boolean inPhase(String id, String phase) {
    return operation(id).map(op -> op.phase().equals(phase)).orElse(false);
  }

  /** {@link LedgerView#writtenSince}, empty while the ledger cannot be read. */
  public Set<String> writtenSince(long mark) {
    try {
      return ledger.writtenSince(mark);
    } catch (java.sql.SQLException e) {
      return Set.of();
    }
  }

  /** {@link LedgerView#firstWriteAfter}, empty while the ledger cannot be read. */
  public Optional<java.time.Instant> firstWriteAfter(long mark, String operation) {
    try {
      return ledger.firstWriteAfter(mark, operation);
    } catch (java.sql.SQLException e) {
      return Optional.empty();
    }
  }

  public Set<String> operations() {
    return Set.copyOf(operations);
  }

  /** Waits for every operation's end, as an operator resolves reviews; then counts. */
  public DrillFigures settle(Duration limit) throws InterruptedException {
    return new Settlement(this).run(limit);
  }

  @Override
  public void close() throws Exception {
    revisionWatch.shutdownNow();
    for (DrillWorker worker : workers) {
      worker.close();
    }
    connection.close();
    simulator.close();
    temporal.close();
    postgres.close();
  }

  private static void deleteRecursively(Path path) throws IOException {
    if (!Files.exists(path)) {
      return;
    }
    // A drill may have left a directory read-only.
    try (var paths = Files.walk(path)) {
      paths.forEach(p -> p.toFile().setWritable(true));
    }
    try (var paths = Files.walk(path)) {
      paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }
}
