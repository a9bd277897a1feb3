package com.genace.ops.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A worker in a JVM of its own ({@code GenaceCli worker}, or the bare worker), started from this
 * process's class path with exactly the given environment, so that its heap, RSS and threads are
 * its own. Its output goes to a log file. Stopped with SIGTERM (it drains), then killed if it
 * lingers.
 */
final class WorkerJvm implements AutoCloseable {

  private static final Pattern HEAP_USED = Pattern.compile("heap\\s+total \\d+K, used (\\d+)K");
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  private final Process process;
  private final Path log;

  private WorkerJvm(Process process, Path log) {
    this.process = process;
    this.log = log;
  }

  /**
   * A bench worker's environment: {@code base} (the services'), its status port, its artifacts and
   * a short drain, so that the bench does not wait long for it to stop.
   */
  static Map<String, String> environment(
      Map<String, String> base, ScratchHome home, int statusPort) {
    Map<String, String> env = new java.util.LinkedHashMap<>(base);
    env.put("GENACE_STATUS_ADDR", "127.0.0.1:" + statusPort);
    env.put("GENACE_ARTIFACT_DIR", home.resolve("artifacts").toString());
    env.put("GENACE_WORKER_ID", "bench-worker");
    env.put("GENACE_DRAIN_SECONDS", "5");
    return env;
  }

  /**
   * @param arguments the launcher's arguments, e.g. {@code worker}
   */
  static WorkerJvm start(Map<String, String> environment, Path log, String... arguments) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    // The launcher's JVM options apply to the worker under test too (e.g. -Xmx512m).
    String options = environment.getOrDefault("GENACE_JAVA_OPTS", "").trim();
    if (!options.isEmpty()) {
      command.addAll(List.of(options.split("\\s+")));
    }
    command.add("-Djava.io.tmpdir=" + System.getProperty("java.io.tmpdir"));
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add("com.genace.ops.GenaceCli");
    command.addAll(List.of(arguments));
    ProcessBuilder builder = new ProcessBuilder(command);
    builder.environment().clear();
    builder.environment().putAll(environment);
    builder.redirectErrorStream(true).redirectOutput(log.toFile());
    try {
      Process process = builder.start();
      // A bench stopped from outside (Ctrl-C, a CI timeout) must not leave its workers running.
      Runtime.getRuntime()
          .addShutdownHook(new Thread(process::destroyForcibly, "bench-worker-reaper"));
      return new WorkerJvm(process, log);
    } catch (IOException e) {
      throw new UncheckedIOException("could not start a worker JVM", e);
    }
  }

  long pid() {
    return process.pid();
  }

  /** Waits until {@code url} answers 200. */
  void awaitHttpOk(URI url, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      requireAlive();
      try {
        HttpResponse<Void> response =
            HTTP.send(
                HttpRequest.newBuilder(url).timeout(Duration.ofSeconds(2)).build(),
                HttpResponse.BodyHandlers.discarding());
        if (response.statusCode() == 200) {
          return;
        }
      } catch (IOException notYet) {
        // Not listening yet.
      }
      Thread.sleep(250);
    }
    throw new IllegalStateException(
        "the worker did not answer 200 on "
            + url
            + " within "
            + timeout.toSeconds()
            + " s"
            + tail());
  }

  /** Waits until the worker's output contains {@code text}. */
  void awaitOutput(String text, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      requireAlive();
      try {
        if (Files.readString(log).contains(text)) {
          return;
        }
      } catch (IOException notYet) {
        // Nothing written yet.
      }
      Thread.sleep(250);
    }
    throw new IllegalStateException(
        "the worker did not print '" + text + "' within " + timeout.toSeconds() + " s" + tail());
  }

  /** The CPU time the process has used so far (all its threads), or zero where the OS hides it. */
  Duration cpuTime() {
    return process.toHandle().info().totalCpuDuration().orElse(Duration.ZERO);
  }

  /** Resident set size from /proc, or null where there is no /proc. */
  Long rssBytes() {
    Long kib = procStatus("VmRSS");
    return kib == null ? null : kib * 1024;
  }

  /** Every thread of the process (Java and the JVM's own), from /proc; null where there is none. */
  Long threads() {
    return procStatus("Threads");
  }

  /**
   * The heap in use after a full collection (what the worker really keeps), through {@code jcmd};
   * null when the JDK has no jcmd.
   */
  Long liveHeapBytes() throws InterruptedException {
    Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
    if (!Files.isExecutable(jcmd)) {
      return null;
    }
    jcmd(jcmd, "GC.run");
    Matcher used = HEAP_USED.matcher(jcmd(jcmd, "GC.heap_info"));
    return used.find() ? Long.parseLong(used.group(1)) * 1024 : null;
  }

  private String jcmd(Path jcmd, String command) throws InterruptedException {
    try {
      Process run =
          new ProcessBuilder(jcmd.toString(), Long.toString(pid()), command)
              .redirectErrorStream(true)
              .start();
      String output = new String(run.getInputStream().readAllBytes());
      run.waitFor(60, TimeUnit.SECONDS);
      return output;
    } catch (IOException e) {
      return "";
    }
  }

  private Long procStatus(String field) {
    try {
      for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid()), "status"))) {
        if (line.startsWith(field + ":")) {
          return Long.parseLong(line.substring(field.length() + 1).trim().split("\\s+")[0]);
        }
      }
    } catch (IOException | RuntimeException e) {
      return null;
    }
    return null;
  }

  private void requireAlive() {
    if (!process.isAlive()) {
      throw new IllegalStateException(
          "the worker exited with code " + process.exitValue() + tail());
    }
  }

  /** The end of the worker's output, for an error message. */
  private String tail() {
    try {
      List<String> lines = Files.readAllLines(log);
      return "; its last output: "
          + String.join(" | ", lines.subList(Math.max(0, lines.size() - 5), lines.size()));
    } catch (IOException e) {
      return "";
    }
  }

  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }
}
