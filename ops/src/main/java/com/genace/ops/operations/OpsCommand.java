package com.genace.ops.operations;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code genace ops ...}: what an operator does with operations and the fleet. */
@Command(
    name = "ops",
    mixinStandardHelpOptions = true,
    description =
        "Inspect operations, resolve reviews, cancel operations, pause and resume dispatch, set the fleet's"
            + " configuration version, report what was spent, recover after a restore, register who may approve spending again.",
    subcommands = {
      ListCommand.class,
      ShowCommand.class,
      ResolveCommand.class,
      CancelCommand.class,
      DispatchPauseCommands.Pause.class,
      DispatchPauseCommands.Resume.class,
      ConfigVersionCommand.class,
      SpendCommand.class,
      RecoverCommand.class,
      ApproversCommand.class,
      AccountsCommand.class
    })
public final class OpsCommand implements Runnable {

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(), "missing command");
  }
}
