package com.genace.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.genace.activities.testing.DatabaseExtension;
import com.genace.client.connection.TemporalSettings;
import com.genace.testkit.LoopbackPorts;
import com.genace.worker.config.WorkerConfig;
import com.genace.worker.support.TestEnvironment;
import com.genace.worker.temporal.TemporalTarget;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A worker whose wiring fails part way leaves nothing running: what the steps before the failing
 * one opened is closed, and the failure propagates as it was. Real components throughout: the
 * shared PostgreSQL, Temporal stubs to a loopback address nothing listens on (they connect lazily,
 * so wiring never reaches it), the status port held by another socket.
 *
 * <p>What is observed: the threads started while wiring. Each resource the stack opens shows as
 * threads of its own (the first test sees them all): the ledger pool's housekeeper ({@code
 * genace-ledger:housekeeper}), the poll loop and its writer ({@code genace-poll-*}), the Temporal
 * channel's ({@code grpc-*}) and the SDK metrics reporter's, the one non-daemon thread. After a
 * failure, none of the stack's threads and no non-daemon thread may remain.
 */
@ExtendWith(DatabaseExtension.class)
class WorkerStackCleanupTest {

  private static final Duration SETTLE = Duration.ofSeconds(20);

  @TempDir Path directory;

  private final TemporalTarget nowhere =
      TemporalTarget.of(TemporalSettings.local("127.0.0.1:" + LoopbackPorts.free()));

  private Map<String, String> environment() {
    Map<String, String> env =
        TestEnvironment.worker(URI.create("http://127.0.0.1:9/"), directory.resolve("artifacts"));
    env.put("GENACE_WORKER_ID", "worker-cleanup");
    return env;
  }

  @Test
  void a_wired_stack_runs_threads_of_its_own_and_closing_it_ends_them() {
    WorkerConfig config = WorkerConfig.fromEnvironment(environment());
    Set<Thread> before = Set.copyOf(Thread.getAllStackTraces().keySet());

    WorkerStack stack = new WorkerStack(config, nowhere, Clock.systemUTC());
    try {
      assertThat(names(startedSince(before)))
          .contains("genace-ledger:housekeeper", "genace-poll-loop1")
          .anyMatch(name -> name.startsWith("grpc-"));
      assertThat(startedSince(before)).anyMatch(thread -> !thread.isDaemon());
    } finally {
      stack.close();
    }

    assertNothingLeftRunning(before);
  }

  @Test
  void a_taken_status_port_closes_the_pool_the_temporal_stubs_the_workers_and_the_metrics()
      throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      Map<String, String> env = environment();
      env.put("GENACE_STATUS_ADDR", "127.0.0.1:" + taken.getLocalPort());
      WorkerConfig config = WorkerConfig.fromEnvironment(env);
      Set<Thread> before = Set.copyOf(Thread.getAllStackTraces().keySet());

      // The factory's shutdown tells Temporal that its workers stop, and Temporal is unreachable:
      // that failure to close travels with the port's, suppressed, and the rest is closed anyway.
      assertThatThrownBy(() -> new WorkerProcess(config, nowhere, Clock.systemUTC()))
          .isInstanceOf(UncheckedIOException.class)
          .hasMessage("cannot listen on " + config.statusAddress() + " (GENACE_STATUS_ADDR)")
          .satisfies(
              e ->
                  assertThat(e.getSuppressed())
                      .allSatisfy(
                          closing ->
                              assertThat(closing)
                                  .hasMessageStartingWith(
                                      "closing the Temporal worker factory failed: UNAVAILABLE")));

      assertNothingLeftRunning(before);
    }
  }

  @Test
  void an_artifact_directory_that_cannot_be_made_closes_what_the_steps_before_it_opened()
      throws Exception {
    Path file = Files.writeString(directory.resolve("a-file"), "not a directory");
    Map<String, String> env = environment();
    env.put("GENACE_ARTIFACT_DIR", file.toString());
    WorkerConfig config = WorkerConfig.fromEnvironment(env);
    Set<Thread> before = Set.copyOf(Thread.getAllStackTraces().keySet());

    assertThatThrownBy(() -> new WorkerStack(config, nowhere, Clock.systemUTC()))
        .isInstanceOf(UncheckedIOException.class)
        .hasMessageStartingWith("cannot create the artifact directory " + file)
        .satisfies(e -> assertThat(e.getSuppressed()).isEmpty());

    assertNothingLeftRunning(before);
  }

  /**
   * No thread of the stack's and no non-daemon thread started since {@code before} is alive. The
   * JDK's HTTP client (the Genace client's) is not among them: its selector thread is a daemon that
   * a Java 17 client cannot stop, and it ends once the client is collected.
   */
  private static void assertNothingLeftRunning(Set<Thread> before) {
    // Polled on this thread: Awaitility's own poller would be a non-daemon thread started since.
    await()
        .pollInSameThread()
        .atMost(SETTLE)
        .untilAsserted(
            () -> {
              List<Thread> left = startedSince(before);
              assertThat(names(left))
                  .as("threads left by the stack")
                  .noneMatch(name -> name.startsWith("genace-") || name.startsWith("grpc-"));
              assertThat(names(left.stream().filter(t -> !t.isDaemon()).toList()))
                  .as("non-daemon threads left")
                  .isEmpty();
            });
  }

  private static List<Thread> startedSince(Set<Thread> before) {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(thread -> thread.isAlive() && !before.contains(thread))
        .toList();
  }

  private static List<String> names(List<Thread> threads) {
    return threads.stream().map(Thread::getName).toList();
  }
}
