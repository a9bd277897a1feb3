package com.genace.ops.faults.support;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/** What every drill needs around processes: running a command, signals, waiting for a fact. */
public final class Drills {

  public static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(120);

  private Drills() {}

  /** The repository's root (the tests run in {@code ops/}). */
  public static Path repositoryRoot() {
    Path dir = Path.of("").toAbsolutePath();
    while (dir != null && !Files.isExecutable(dir.resolve("genace"))) {
      dir = dir.getParent();
    }
    if (dir == null) {
      throw new IllegalStateException("not inside the repository: no ./genace above " + dir);
    }
    return dir;
  }

  /**
   * Runs a command to its end, its output appended to {@code log}.
   *
   * @throws IllegalStateException with the log's tail when it fails or hangs
   */
  public static String run(List<String> command, Path log)
      throws IOException, InterruptedException {
    return run(command, Map.of(), log);
  }

  /** {@link #run(List, Path)} with more environment variables. */
  public static String run(List<String> command, Map<String, String> env, Path log)
      throws IOException, InterruptedException {
    Files.createDirectories(log.getParent());
    Path out = Files.createTempFile(log.getParent(), "command", ".out");
    try {
      ProcessBuilder builder = new ProcessBuilder(command);
      builder.environment().putAll(env);
      Process process =
          builder
              .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))
              .redirectOutput(out.toFile())
              .redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()))
              .start();
      if (!process.waitFor(COMMAND_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new IllegalStateException(String.join(" ", command) + " did not finish in time");
      }
      String output = Files.readString(out);
      Files.writeString(log, output, java.nio.file.StandardOpenOption.APPEND);
      if (process.exitValue() != 0) {
        throw new IllegalStateException(
            String.join(" ", command) + " exited " + process.exitValue() + ": " + tail(log));
      }
      return output;
    } finally {
      Files.deleteIfExists(out);
    }
  }

  /** Sends a signal by name ({@code STOP}, {@code CONT}, {@code KILL}) to a process. */
  public static void signal(long pid, String name) throws IOException, InterruptedException {
    Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(pid)).start();
    if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
      throw new IllegalStateException("kill -" + name + " " + pid + " failed");
    }
  }

  /**
   * Waits until {@code condition} holds, checking five times a second.
   *
   * @return whether it held before {@code limit}
   */
  public static boolean await(Duration limit, BooleanSupplier condition)
      throws InterruptedException {
    long deadline = System.nanoTime() + limit.toNanos();
    while (true) {
      if (condition.getAsBoolean()) {
        return true;
      }
      if (System.nanoTime() > deadline) {
        return false;
      }
      Thread.sleep(200);
    }
  }

  /** Like {@link #await} but a drill cannot go on without it. */
  public static void require(Duration limit, String what, BooleanSupplier condition)
      throws InterruptedException {
    if (!await(limit, condition)) {
      throw new AssertionError("drill setup: " + what + " did not happen within " + limit);
    }
  }

  public static String tail(Path log) {
    try {
      List<String> lines = Files.readAllLines(log);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
    } catch (IOException e) {
      return "(no log: " + e.getMessage() + ")";
    }
  }
}
