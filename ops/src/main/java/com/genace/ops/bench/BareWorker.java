package com.genace.ops.bench;

import com.genace.ops.Environment;
import java.util.concurrent.Callable;
import picocli.CommandLine;

/**
 * The bare baseline's worker process ({@code genace bench bare-worker}, started by {@code bench
 * e2e}), serving {@link BareWorkflow} with the operations queue's options ({@link BaselineWorker}).
 */
final class BareWorker {

  static final String READY = "bench bare worker polling";

  private BareWorker() {}

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
      BaselineWorker.serve(
          env,
          spec.commandLine().getOut(),
          BareWorkflow.TASK_QUEUE,
          READY,
          worker -> {
            worker.registerWorkflowImplementationTypes(BareWorkflow.Impl.class);
            worker.registerActivitiesImplementations(new BareWorkflow.StepsImpl());
          });
      return 0;
    }
  }
}
