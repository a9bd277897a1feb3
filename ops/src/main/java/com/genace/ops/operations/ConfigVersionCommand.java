package com.genace.ops.operations;

import com.genace.ops.Environment;
import com.genace.worker.fleet.ConfigVersion;
import java.time.temporal.ChronoUnit;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code genace ops set-config-version V}: the fleet's current configuration version. */
@Command(
    name = "set-config-version",
    mixinStandardHelpOptions = true,
    description = {
      "Make VERSION the fleet's current configuration version (durable, in DATABASE_URL).",
      "Workers deployed with another GENACE_CONFIG_VERSION (or none) stop taking dispatch within"
          + " seconds, until redeployed; observation and delivery go on."
    })
final class ConfigVersionCommand implements Runnable {

  private final Environment env;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Parameters(index = "0", paramLabel = "VERSION", description = "e.g. 2024-06-01.1")
  String version;

  @Option(names = "--reason", paramLabel = "TEXT", description = "Why, for the record.")
  String reason;

  @Option(names = "--by", paramLabel = "NAME", description = "Who (default: $USER).")
  String by;

  ConfigVersionCommand(Environment env) {
    this.env = env;
  }

  @Override
  public void run() {
    try {
      ConfigVersion.require(version);
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), "VERSION: " + e.getMessage());
    }
    String who = by != null && !by.isBlank() ? by : env.get("USER").orElse("operator");
    ConfigVersion now;
    try (LedgerAccess access = LedgerAccess.open(env)) {
      now =
          access.fleet(
              fleet -> {
                fleet.setVersion(version, who, reason);
                return fleet.current().orElseThrow();
              });
    }
    spec.commandLine()
        .getOut()
        .println(
            "fleet configuration version: "
                + now.version()
                + " (set by "
                + now.changedBy()
                + " at "
                + now.since().truncatedTo(ChronoUnit.SECONDS)
                + "); workers deployed with another GENACE_CONFIG_VERSION stop taking dispatch");
  }
}
