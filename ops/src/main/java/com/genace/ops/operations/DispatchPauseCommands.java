package com.genace.ops.operations;

import com.genace.controls.DispatchPause;
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

  @Command(
      name = "pause-dispatch",
      mixinStandardHelpOptions = true,
      description = {
        "Stop every worker sharing DATABASE_URL from sending new POSTs, until resume-dispatch.",
        "Durable: survives worker restarts. Observation and delivery keep running."
      })
  static final class Pause implements Runnable {

    private final Environment env;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Option(names = "--reason", paramLabel = "TEXT", description = "Why, for the record.")
    String reason;

    @Option(names = "--by", paramLabel = "NAME", description = "Who (default: $USER).")
    String by;

    Pause(Environment env) {
      this.env = env;
    }

    @Override
    public void run() {
      String who = who(by, env);
      Optional<DispatchPause> now;
      try (LedgerAccess access = LedgerAccess.open(env)) {
        now =
            access.controls(
                controls -> {
                  controls.pauseDispatch(who, reason);
                  return controls.dispatchPause();
                });
      }
      print(spec.commandLine().getOut(), now);
    }
  }

  @Command(
      name = "resume-dispatch",
      mixinStandardHelpOptions = true,
      description = "Let workers sharing DATABASE_URL send POSTs again.")
  static final class Resume implements Runnable {

    private final Environment env;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Option(names = "--reason", paramLabel = "TEXT", description = "Why, for the record.")
    String reason;

    @Option(names = "--by", paramLabel = "NAME", description = "Who (default: $USER).")
    String by;

    Resume(Environment env) {
      this.env = env;
    }

    @Override
    public void run() {
      String who = who(by, env);
      Optional<DispatchPause> now;
      try (LedgerAccess access = LedgerAccess.open(env)) {
        now =
            access.controls(
                controls -> {
                  controls.resumeDispatch(who, reason);
                  return controls.dispatchPause();
                });
      }
      print(spec.commandLine().getOut(), now);
    }
  }

  private static String who(String by, Environment env) {
    return by != null && !by.isBlank() ? by : env.get("USER").orElse("operator");
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
