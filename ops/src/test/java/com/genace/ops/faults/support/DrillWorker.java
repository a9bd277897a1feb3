package com.genace.ops.faults.support;

import com.genace.testkit.LoopbackPorts;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * One {@code genace worker} process, started as the launcher starts it ({@code java -cp ...
 * com.genace.ops.GenaceCli worker}) with its configuration in the environment, and driven from the
 * outside: probes over HTTP, signals from {@code kill}.
 */
public final class DrillWorker implements AutoCloseable {

  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  public final String name;
  public final Path log;
  private final Process process;
  private final int statusPort;

  private DrillWorker(String name, Process process, int statusPort, Path log) {
    this.name = name;
    this.process = process;
    this.statusPort = statusPort;
    this.log = log;
  }

  /**
   * Starts a worker named {@code name} with these settings; its lease owner is {@code name} unless
   * the settings give {@code GENACE_WORKER_ID}.
   */
  public static DrillWorker start(String name, Map<String, String> env, Path log)
      throws IOException {
    return start(name, env, log, Release.CURRENT);
  }

  /** {@link #start(String, Map, Path)} with the worker of another release. */
  public static DrillWorker start(String name, Map<String, String> env, Path log, Release release)
      throws IOException {
    int statusPort = LoopbackPorts.free();
    List<String> command = new ArrayList<>();
    command.add(ProcessHandle.current().info().command().orElse("java"));
    // Small and quick to start: several of these share two cores with the servers.
    command.addAll(List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"));
    command.addAll(List.of("-cp", release.classpath()));
    command.addAll(List.of("com.genace.ops.GenaceCli", "worker"));
    ProcessBuilder builder = new ProcessBuilder(command);
    builder.environment().putAll(env);
    builder.environment().putIfAbsent("GENACE_WORKER_ID", name);
    builder.environment().put("GENACE_STATUS_ADDR", "127.0.0.1:" + statusPort);
    java.nio.file.Files.createDirectories(log.getParent());
    Process process =
        builder
            .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .start();
    return new DrillWorker(name, process, statusPort, log);
  }

  public long pid() {
    return process.pid();
  }

  public boolean alive() {
    return process.isAlive();
  }

  /** The HTTP status of a probe ({@code /readyz}, {@code /startupz}...), or -1 when none came. */
  public int probe(String path) {
    try {
      return HTTP.send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + statusPort + path))
                  .timeout(Duration.ofSeconds(2))
                  .build(),
              HttpResponse.BodyHandlers.discarding())
          .statusCode();
    } catch (IOException e) {
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  public boolean ready() {
    return probe("/readyz") == 200;
  }

  /** Waits until the worker has started (its startup checks passed) and is ready. */
  public DrillWorker awaitReady(Duration limit) throws InterruptedException {
    if (!Drills.await(limit, () -> !alive() || ready())) {
      throw new AssertionError(name + " not ready within " + limit + ":\n" + Drills.tail(log));
    }
    if (!alive()) {
      throw new AssertionError(name + " exited " + process.exitValue() + ":\n" + Drills.tail(log));
    }
    return this;
  }

  /** Pauses dispatch on this worker only (its admin endpoint); observation goes on. */
  public DrillWorker pauseDispatch() throws IOException, InterruptedException {
    admin("/admin/pause-dispatch?reason=drill");
    return this;
  }

  public void resumeDispatch() throws IOException, InterruptedException {
    admin("/admin/resume-dispatch");
  }

  private void admin(String path) throws IOException, InterruptedException {
    int status =
        HTTP.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + statusPort + path))
                    .header("Authorization", "Bearer " + DrillStack.STATUS_TOKEN)
                    .POST(HttpRequest.BodyPublishers.noBody())
                    .timeout(Duration.ofSeconds(5))
                    .build(),
                HttpResponse.BodyHandlers.discarding())
            .statusCode();
    if (status / 100 != 2) {
      throw new IllegalStateException(name + " answered " + status + " to " + path);
    }
  }

  /**
   * SIGTERM, as a rollout stops a worker, then waits for it to exit by itself (its drain).
   *
   * @return its exit code
   * @throws AssertionError when it has not exited within {@code limit}
   */
  public int drain(Duration limit) throws InterruptedException {
    process.destroy();
    if (!process.waitFor(limit.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS)) {
      throw new AssertionError(
          name + " did not exit within " + limit + " of SIGTERM:\n" + Drills.tail(log));
    }
    return process.exitValue();
  }

  /** SIGSTOP: the process keeps its sockets and leases but does nothing. */
  public void freeze() throws IOException, InterruptedException {
    Drills.signal(pid(), "STOP");
  }

  public void thaw() throws IOException, InterruptedException {
    Drills.signal(pid(), "CONT");
  }

  /** {@code kill -9}: no drain, no release, no last words. */
  public void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor();
  }

  /** SIGTERM (drain), then SIGKILL if it has not exited within the drain budget. */
  @Override
  public void close() throws InterruptedException {
    if (!process.isAlive()) {
      return;
    }
    try {
      thaw();
    } catch (IOException | RuntimeException e) {
      // not frozen, or already gone
    }
    process.destroy();
    if (!process.waitFor(20, java.util.concurrent.TimeUnit.SECONDS)) {
      kill();
    }
  }
}
