package com.genace.ops.worker;

import com.genace.ops.Environment;
import com.genace.worker.WorkerMain;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** {@code genace worker}: a worker process configured from the environment. */
@Command(
    name = "worker",
    mixinStandardHelpOptions = true,
    description = {
      "Run a worker configured from the environment until SIGTERM or SIGINT, then drain and exit 0.",
      "Needs DATABASE_URL, GENACE_BASE_URL and GENACE_API_KEY; see docs/configuration.md"
          + " for the others.",
      "Endpoints on GENACE_STATUS_ADDR (default 127.0.0.1:8686): /livez /readyz /startupz /status"
          + " /metrics."
    })
public final class WorkerCommand implements Callable<Integer> {

  private final Environment env;

  WorkerCommand(Environment env) {
    this.env = env;
  }

  @Override
  public Integer call() throws InterruptedException {
    return WorkerMain.run(env.variables());
  }
}
