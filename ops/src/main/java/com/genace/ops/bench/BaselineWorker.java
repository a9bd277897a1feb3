package com.genace.ops.bench;

import com.genace.client.connection.TemporalSettings;
import com.genace.client.connection.TemporalUnavailableException;
import com.genace.ops.Environment;
import com.genace.worker.GenerationWorkers;
import com.genace.worker.config.WorkerConfig;
import com.genace.worker.temporal.TemporalConnection;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerFactory;
import io.temporal.worker.WorkerFactoryOptions;
import io.temporal.worker.WorkerOptions;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * What the worker processes of {@code bench e2e}'s baselines (bare and naive) share: the same
 * Temporal connection and the same worker options as the worker's operations queue ({@code
 * GENACE_MAX_OPERATIONS} concurrent activities, {@code GENACE_TASK_POLLERS}, the workflow cache),
 * one task queue, and a life until SIGTERM.
 */
final class BaselineWorker {

  static final Duration STARTUP = Duration.ofSeconds(120);

  private BaselineWorker() {}

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

  /**
   * Serves {@code taskQueue} with what {@code register} puts on its worker, prints {@code ready}
   * once it polls, and returns when the process is told to stop.
   */
  static void serve(
      Environment env, PrintWriter out, String taskQueue, String ready, Consumer<Worker> register)
      throws InterruptedException {
    CountDownLatch stop = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(stop::countDown));
    try (TemporalConnection connection =
        connect(TemporalSettings.fromEnvironment(env.variables()))) {
      WorkerFactory factory =
          WorkerFactory.newInstance(connection.workflowClient(), factoryOptions(env));
      register.accept(factory.newWorker(taskQueue, options(env)));
      factory.start();
      out.println(ready);
      out.flush();
      stop.await();
      factory.shutdownNow();
      factory.awaitTermination(5, TimeUnit.SECONDS);
    }
  }

  private static int setting(Environment env, String name, int defaultValue) {
    return env.get(name).map(Integer::parseInt).orElse(defaultValue);
  }

  /** Like the worker's startup checks, tries again: a loaded machine may answer slowly. */
  private static TemporalConnection connect(TemporalSettings settings) throws InterruptedException {
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
