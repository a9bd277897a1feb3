package com.genace.ops;

import com.genace.ops.bench.BenchCommand;
import com.genace.ops.codec.CodecServerCommand;
import com.genace.ops.db.DbCommand;
import com.genace.ops.demo.DemoCommand;
import com.genace.ops.dev.DevCommand;
import com.genace.ops.operations.OpsCommand;
import com.genace.ops.simulator.SimulatorCommand;
import com.genace.ops.submit.SubmitCommand;
import com.genace.ops.worker.WorkerCommand;
import com.genace.worker.BuildInfo;
import java.io.PrintWriter;
import java.lang.reflect.Constructor;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code ./genace} launcher's entry point. Exit codes: 0 success, 1 failure (with its cause on
 * one line), 2 usage error (with the reason and the usage).
 */
@Command(
    name = "genace",
    mixinStandardHelpOptions = true,
    versionProvider = GenaceCli.BuildVersion.class,
    description = "Runs paid Genace generation operations safely on Temporal.",
    subcommands = {
      DemoCommand.class,
      DevCommand.class,
      WorkerCommand.class,
      SubmitCommand.class,
      OpsCommand.class,
      DbCommand.class,
      SimulatorCommand.class,
      BenchCommand.class,
      CodecServerCommand.class
    })
public final class GenaceCli implements Runnable {

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    System.exit(
        execute(
            Environment.system(),
            new PrintWriter(System.out, true),
            new PrintWriter(System.err, true),
            args));
  }

  /** Runs one command line; what {@link #main} does, without exiting the JVM. */
  public static int execute(Environment env, PrintWriter out, PrintWriter err, String... args) {
    CommandLine cli = new CommandLine(new GenaceCli(), new EnvironmentFactory(env));
    cli.setOut(out);
    cli.setErr(err);
    cli.setParameterExceptionHandler(GenaceCli::usageError);
    cli.setExecutionExceptionHandler(
        (exception, commandLine, parseResult) -> {
          commandLine.getErr().println("genace: error: " + describe(exception));
          return 1;
        });
    return cli.execute(args);
  }

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(), "missing command");
  }

  /** The reason, suggestions if any, then always the usage (picocli omits it with suggestions). */
  private static int usageError(CommandLine.ParameterException exception, String[] args) {
    CommandLine command = exception.getCommandLine();
    PrintWriter err = command.getErr();
    err.println(exception.getMessage());
    if (exception instanceof CommandLine.UnmatchedArgumentException unmatched) {
      CommandLine.UnmatchedArgumentException.printSuggestions(unmatched, err);
    }
    command.usage(err);
    return command.getCommandSpec().exitCodeOnInvalidInput();
  }

  private static String describe(Throwable exception) {
    String message = exception.getMessage();
    return message == null || message.isBlank() ? exception.getClass().getSimpleName() : message;
  }

  /** Creates commands, handing the environment to those whose constructor asks for it. */
  private record EnvironmentFactory(Environment env) implements CommandLine.IFactory {
    @Override
    public <K> K create(Class<K> type) throws Exception {
      for (Constructor<?> constructor : type.getDeclaredConstructors()) {
        Class<?>[] parameters = constructor.getParameterTypes();
        if (parameters.length == 1 && parameters[0] == Environment.class) {
          constructor.setAccessible(true);
          return type.cast(constructor.newInstance(env));
        }
      }
      return CommandLine.defaultFactory().create(type);
    }
  }

  /** {@code --version}: the version and the commit of this build. */
  static final class BuildVersion implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      return new String[] {BuildInfo.current().describe()};
    }
  }
}
