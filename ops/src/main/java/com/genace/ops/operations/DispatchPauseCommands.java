package com.genace.ops.operations;

import com.genace.activities.controls.DispatchPause;
import com.genace.activities.controls.WorkerControls;
import com.genace.ops.Environment;
import java.io.PrintWriter;
import java.time.temporal.ChronoUnit;
import java.util.Optional;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code genace ops pause-dispatch} and {@code resume-dispatch}: the fleet-wide switch. */
final class DispatchPauseCommands {

  private DispatchPauseCommands() {}

  /** What both commands share: who and why, the change itself, then the resulting state. */
  abstract static class Switch implements Runnable {

    private final Environment env;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Option(names = "--reason", paramLabel = "TEXT", description = "Why, for the record.")
    String reason;

    @Option(names = "--by", paramLabel = "NAME", description = "Who (default: $USER).")
    String by;

    Switch(Environment env) {
      this.env = env;
    }

    abstract void apply(WorkerControls controls, String who, String reason);

    @Override
    public void run() {
      String who = by != null && !by.isBlank() ? by : env.get("USER").orElse("operator");
      Optional<DispatchPause> now;
      try (LedgerAccess access = LedgerAccess.open(env)) {
        now =
            access.controls(
                controls -> {
                  apply(controls, who, reason);
                  return controls.dispatchPause();
                });
      }
      print(spec.commandLine().getOut(), now);
    }
  }

  @Command(
      name = "pause-dispatch",
      mixinStandardHelpOptions = true,
      description = {
        "Stop every worker sharing DATABASE_URL from sending new POSTs, until resume-dispatch.",
        "Durable: survives worker restarts. Observation and delivery keep running."
      })
  static final class Pause extends Switch {

    Pause(Environment env) {
      super(env);
    }

    @Override
    void apply(WorkerControls controls, String who, String reason) {
      controls.pauseDispatch(who, reason);
    }
  }

  @Command(
      name = "resume-dispatch",
      mixinStandardHelpOptions = true,
      description = "Let workers sharing DATABASE_URL send POSTs again.")
  static final class Resume extends Switch {

    Resume(Environment env) {
      super(env);
    }

    @Override
    void apply(WorkerControls controls, String who, String reason) {
      controls.resumeDispatch(who, reason);
    }
  }

  private static void print(PrintWriter out, Optional<DispatchPause> pause) {
    if (pause.isEmpty()) {
      out.println("dispatch: running (workers may send new POSTs)");
      return;
    }
    DispatchPause p = pause.get();
    out.println(
        "dispatch: PAUSED fleet-wide by "
            + p.pausedBy()
            + " since "
            + p.since().truncatedTo(ChronoUnit.SECONDS)
            + (p.reason() == null ? "" : " (" + p.reason() + ")")
            + "; observation and delivery continue");
  }
}
