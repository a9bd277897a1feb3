package com.genace.ops.bench;

import com.genace.ops.Environment;
import com.genace.worker.GenerationWorkers;
import com.genace.worker.config.WorkerConfig;
import com.genace.worker.temporal.TemporalConnection;
import com.genace.worker.temporal.TemporalSettings;
import com.genace.worker.temporal.TemporalUnavailableException;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerFactory;
import io.temporal.worker.WorkerFactoryOptions;
import io.temporal.worker.WorkerOptions;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;

/**
 * The bare baseline's worker process ({@code genace bench bare-worker}, started by {@code bench
 * e2e}): the same Temporal connection and the same worker options as the worker's operations queue
 * ({@code GENACE_MAX_OPERATIONS} concurrent activities), serving {@link BareWorkflow}.
 */
final class BareWorker {

  static final String READY = "bench bare worker polling";
  static final Duration STARTUP = Duration.ofSeconds(120);

  private BareWorker() {}

  /** The operations worker's options, from the same variables and defaults as the worker's. */
  static WorkerOptions options(Environment env) {
    return GenerationWorkers.operationsOptions(
        setting(env, "GENACE_MAX_OPERATIONS", WorkerConfig.DEFAULT_MAX_OPERATIONS),
        setting(env, "GENACE_TASK_POLLERS", WorkerConfig.DEFAULT_TASK_POLLERS));
  }

  /** The worker's workflow cache, and as many workflow threads, as the worker sets them. */
  static WorkerFactoryOptions factoryOptions(Environment env) {
    int cache = setting(env, "GENACE_WORKFLOW_CACHE", WorkerConfig.DEFAULT_WORKFLOW_CACHE);
    return WorkerFactoryOptions.newBuilder()
        .setWorkflowCacheSize(cache)
        .setMaxWorkflowThreadCount(cache)
        .build();
  }

  private static int setting(Environment env, String name, int defaultValue) {
    return env.get(name).map(Integer::parseInt).orElse(defaultValue);
  }

  @CommandLine.Command(
      name = "bare-worker",
      hidden = true,
      description = "The bare baseline's worker, started by bench e2e; runs until SIGTERM.")
  static final class Command implements Callable<Integer> {

    private final Environment env;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    Command(Environment env) {
      this.env = env;
    }

    @Override
    public Integer call() throws InterruptedException {
      CountDownLatch stop = new CountDownLatch(1);
      Runtime.getRuntime().addShutdownHook(new Thread(stop::countDown));
      try (TemporalConnection connection =
          connect(TemporalSettings.fromEnvironment(env.variables()))) {
        WorkerFactory factory =
            WorkerFactory.newInstance(connection.workflowClient(), factoryOptions(env));
        Worker worker = factory.newWorker(BareWorkflow.TASK_QUEUE, options(env));
        worker.registerWorkflowImplementationTypes(BareWorkflow.Impl.class);
        worker.registerActivitiesImplementations(new BareWorkflow.StepsImpl());
        factory.start();
        PrintWriter out = spec.commandLine().getOut();
        out.println(READY);
        out.flush();
        stop.await();
        factory.shutdownNow();
        factory.awaitTermination(5, TimeUnit.SECONDS);
      }
      return 0;
    }

    /** Like the worker's startup checks, tries again: a loaded machine may answer slowly. */
    private static TemporalConnection connect(TemporalSettings settings)
        throws InterruptedException {
      long deadline = System.nanoTime() + STARTUP.toNanos();
      while (true) {
        try {
          return TemporalConnection.open(settings);
        } catch (TemporalUnavailableException e) {
          if (System.nanoTime() > deadline) {
            throw e;
          }
          Thread.sleep(2000);
        }
      }
    }
  }
}
