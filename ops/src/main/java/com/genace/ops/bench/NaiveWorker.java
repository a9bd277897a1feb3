package com.genace.ops.bench;

import com.genace.activities.delivery.ArtifactStore;
import com.genace.activities.delivery.ArtifactStores;
import com.genace.activities.genace.HttpGenaceClient;
import com.genace.ops.Environment;
import com.genace.worker.config.WorkerConfig;
import java.util.concurrent.Callable;
import picocli.CommandLine;

/**
 * The naive baseline's worker process ({@code genace bench naive-worker}, started by {@code bench
 * e2e}): {@link NaiveWorkflow} and its activities on one queue with the operations queue's options
 * ({@link BaselineWorker}), and the Genace client and artifact store the worker would build from
 * the same environment ({@link WorkerConfig}).
 */
final class NaiveWorker {

  static final String READY = "bench naive worker polling";

  private NaiveWorker() {}

  @CommandLine.Command(
      name = "naive-worker",
      hidden = true,
      description = "The naive baseline's worker, started by bench e2e; runs until SIGTERM.")
  static final class Command implements Callable<Integer> {

    private final Environment env;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    Command(Environment env) {
      this.env = env;
    }

    @Override
    public Integer call() throws InterruptedException {
      WorkerConfig config = WorkerConfig.fromEnvironment(env.variables());
      try (ArtifactStore store =
          ArtifactStores.open(config.artifacts(), env.variables(), config.s3Timeouts())) {
        NaiveSteps steps = new NaiveSteps(new HttpGenaceClient(config.genaceClientConfig()), store);
        BaselineWorker.serve(
            env,
            spec.commandLine().getOut(),
            NaiveWorkflow.TASK_QUEUE,
            READY,
            worker -> {
              worker.registerWorkflowImplementationTypes(NaiveWorkflow.Impl.class);
              worker.registerActivitiesImplementations(steps);
            });
      }
      return 0;
    }
  }
}
