package com.genace.ops.demo;

import com.genace.activities.db.Database;
import com.genace.activities.db.DatabaseConfig;
import com.genace.activities.db.DatabaseUrl;
import com.genace.activities.delivery.LocalDirectoryArtifactStore;
import com.genace.activities.genace.GenaceClientConfig;
import com.genace.activities.genace.HttpGenaceClient;
import com.genace.activities.ledger.OperationsLedger;
import com.genace.activities.observation.PollingPolicy;
import com.genace.client.GenerationClient;
import com.genace.ops.StartedServices;
import com.genace.ops.TemporaryFiles;
import com.genace.ops.temporal.LocalTemporalServer;
import com.genace.testkit.EmbeddedDatabase;
import com.genace.testkit.simulator.Faults;
import com.genace.testkit.simulator.GenaceSimulator;
import com.genace.worker.GenerationWorkers;
import com.genace.worker.temporal.TemporalConnection;
import io.temporal.worker.WorkerFactory;
import io.temporal.worker.WorkerOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Everything the demo runs, in this process: an embedded PostgreSQL (migrated), the Genace
 * simulator with faults, the Temporal test server on a free loopback port, and both task queues'
 * workers with the production activities. Closed in reverse order of start.
 */
final class DemoStack implements AutoCloseable {

  static final String API_KEY = "demo-key";
  static final String WORKER_ID = "demo-worker";

  /** Realistic but quick: renders take 1.5 s; a few fail, a few requests are rate limited. */
  static final Faults FAULTS =
      new Faults(
          1500, // job_duration_ms
          0.10, // fail_rate
          30, // latency_ms
          0.05, // rate_429
          0.02, // rate_5xx: a POST answered 503 has an unknown outcome
          0, // lose_post_response_next: the demo loses responses itself (see DemoCommand)
          401, // refuse_status
          0.0); // refuse_rate: the key works and the credits last

  /** Faster than production so the demo does not wait on backoff. */
  static final PollingPolicy POLLING =
      new PollingPolicy(Duration.ofMillis(200), Duration.ofSeconds(1), 1.5, 0.2);

  /** Best effort: the process is about to end, and the rest must still be closed. */
  private final StartedServices started = new StartedServices(e -> {});

  final Path directory;
  final OperationsLedger ledger;
  final GenaceSimulator simulator;
  final GenerationClient client;

  /** The worker's Genace client, remembering each operation's last POST outcome. */
  final PostOutcomes posts;

  DemoStack(Consumer<String> progress) {
    try {
      directory = Files.createTempDirectory("genace-demo-");
      started.add(() -> TemporaryFiles.deleteRecursively(directory));
      progress.accept("PostgreSQL (embedded, real)");
      EmbeddedDatabase embedded = started.add(EmbeddedDatabase.start(0));
      Database database =
          started.add(
              Database.open(
                  DatabaseConfig.of(DatabaseUrl.parse(embedded.url())).withMaxPoolSize(20)));
      database.migrate();
      ledger = new OperationsLedger(database.dataSource());
      progress.accept("Genace simulator");
      simulator = started.add(GenaceSimulator.builder().apiKey(API_KEY).faults(FAULTS).start());
      progress.accept("Temporal test server");
      LocalTemporalServer temporal = started.add(LocalTemporalServer.start(0));
      TemporalConnection connection = started.add(temporal.connect());
      client = connection.generationClient();
      posts =
          new PostOutcomes(
              new HttpGenaceClient(
                  GenaceClientConfig.of(simulator.baseUrl(), API_KEY)
                      .withTimeouts(Duration.ofSeconds(2), Duration.ofSeconds(10))));
      progress.accept("workers");
      WorkerFactory factory = WorkerFactory.newInstance(connection.workflowClient());
      started.add(
          () -> {
            factory.shutdownNow();
            factory.awaitTermination(5, TimeUnit.SECONDS);
          });
      GenerationWorkers.Dependencies deps =
          GenerationWorkers.Dependencies.builder(
                  ledger,
                  posts,
                  new LocalDirectoryArtifactStore(directory.resolve("artifacts")),
                  WORKER_ID)
              .polling(POLLING)
              .build();
      GenerationWorkers.operationsWorker(factory, deps, WorkerOptions.getDefaultInstance());
      GenerationWorkers.dispatchWorker(factory, deps, WorkerOptions.getDefaultInstance());
      factory.start();
    } catch (IOException e) {
      close();
      throw new UncheckedIOException("could not create the demo's directory", e);
    } catch (RuntimeException e) {
      close();
      throw e;
    }
  }

  @Override
  public void close() {
    started.close();
  }
}
