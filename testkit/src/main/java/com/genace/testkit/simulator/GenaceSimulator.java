package com.genace.testkit.simulator;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A faithful stand-in for Genace on 127.0.0.1, with fault injection, for tests, the demo and
 * drills.
 *
 * <p>The API: {@code POST /v1/generations} (201 {@code {"id","status":"queued"}}; 400 for a body
 * that is not a JSON object, 422 for invalid fields, 401 without a valid bearer token), {@code GET
 * /v1/generations/{id}} (404 if unknown) and {@code GET /v1/models} ({@code {"data":[{"id"}]}}). A
 * job is queued for the first 20% of {@code job_duration_ms}, running until it has elapsed, then
 * succeeded with one or two outputs or failed ({@code fail_rate}, drawn at creation). Outputs are
 * served by the simulator itself with bytes that match the snapshot's size and SHA-256.
 *
 * <p>Control endpoints, without authentication, are described in {@link ControlHandler}; this class
 * offers the same operations in Java. Requests are served by a fixed pool of threads, so injected
 * latency delays requests without serialising them.
 */
public final class GenaceSimulator implements AutoCloseable {

  /** Threads serving requests: enough that injected latency does not queue a test's requests. */
  public static final int DEFAULT_THREADS = 16;

  static {
    // The JDK's server writes a response's head and body separately without TCP_NODELAY, so on
    // a kept-alive connection Nagle's algorithm holds the body until the client's delayed ACK:
    // about 40 ms a request on Linux, which caps a worker's status polls at ~30 a second a
    // connection (bench scale). Genace itself answers at once. Read once, when the JDK's server
    // is first used in the process, so a process that started another server before keeps it.
    if (System.getProperty("sun.net.httpserver.nodelay") == null) {
      System.setProperty("sun.net.httpserver.nodelay", "true");
    }
  }

  private final HttpServer server;
  private final ExecutorService executor;
  private final SimulatorState state;
  private final URI baseUrl;

  private GenaceSimulator(Builder builder) throws IOException {
    this.state = new SimulatorState(builder.apiKey, builder.random(), builder.faults);
    this.server =
        HttpServer.create(
            new InetSocketAddress(InetAddress.getLoopbackAddress(), builder.port), 128);
    this.baseUrl = URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    this.executor = Executors.newFixedThreadPool(builder.threads, daemonThreads());
    server.setExecutor(executor);
    server.createContext("/v1/", new ApiHandler(state, baseUrl.toString()));
    server.createContext("/_sim/", new ControlHandler(state));
    server.start();
  }

  /**
   * Starts a simulator that accepts any non-blank bearer token.
   *
   * @param port the port on 127.0.0.1, or 0 for an ephemeral one
   * @throws UncheckedIOException if the port cannot be bound
   */
  public static GenaceSimulator start(int port) {
    return builder().port(port).start();
  }

  public static Builder builder() {
    return new Builder();
  }

  /** {@code http://127.0.0.1:<port>}, without a trailing slash. */
  public URI baseUrl() {
    return baseUrl;
  }

  public int port() {
    return baseUrl.getPort();
  }

  public SimulatorStats stats() {
    return state.stats();
  }

  public Faults faults() {
    return state.faults();
  }

  /** Replaces all faults at once (the HTTP endpoint replaces only the fields it is given). */
  public void setFaults(Faults faults) {
    state.setFaults(Objects.requireNonNull(faults, "faults"));
  }

  /**
   * Ids of the jobs created for an operation, oldest first: more than one is a duplicate render.
   */
  public List<String> jobsForOperation(String operationId) {
    Objects.requireNonNull(operationId, "operationId");
    return state.jobsFor(operationId).stream().map(SimulatedJob::id).toList();
  }

  /** Forgets all jobs and counters and restores the faults the simulator was started with. */
  public void reset() {
    state.reset();
  }

  /** Stops listening at once; requests in flight (e.g. sleeping in latency) are abandoned. */
  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }

  private static ThreadFactory daemonThreads() {
    AtomicInteger counter = new AtomicInteger();
    return runnable -> {
      // Daemon: a simulator someone forgot to close must not keep the JVM alive.
      Thread thread = new Thread(runnable, "genace-simulator-" + counter.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    };
  }

  /** Options for {@link GenaceSimulator}; every one has a default. */
  public static final class Builder {
    private int port;
    private String apiKey;
    private Long seed;
    private Faults faults = Faults.DEFAULT;
    private int threads = DEFAULT_THREADS;

    private Builder() {}

    /** Port on 127.0.0.1; 0 (the default) picks a free one. */
    public Builder port(int port) {
      if (port < 0 || port > 65535) {
        throw new IllegalArgumentException("port must be between 0 and 65535: " + port);
      }
      this.port = port;
      return this;
    }

    /** Accept only this bearer token (others get 401). By default any non-blank token passes. */
    public Builder apiKey(String apiKey) {
      if (apiKey == null || apiKey.isBlank()) {
        throw new IllegalArgumentException("apiKey must not be blank");
      }
      this.apiKey = apiKey;
      return this;
    }

    /** Seeds all randomness (job ids, fault draws, outcomes) for reproducible runs. */
    public Builder seed(long seed) {
      this.seed = seed;
      return this;
    }

    /** Faults at start and after a reset; default {@link Faults#DEFAULT}. */
    public Builder faults(Faults faults) {
      this.faults = Objects.requireNonNull(faults, "faults");
      return this;
    }

    /** Size of the request thread pool; default {@value GenaceSimulator#DEFAULT_THREADS}. */
    public Builder threads(int threads) {
      if (threads < 1) {
        throw new IllegalArgumentException("threads must be >= 1: " + threads);
      }
      this.threads = threads;
      return this;
    }

    /**
     * Binds and starts serving.
     *
     * @throws UncheckedIOException if the port cannot be bound
     */
    public GenaceSimulator start() {
      try {
        return new GenaceSimulator(this);
      } catch (IOException e) {
        throw new UncheckedIOException("could not start the Genace simulator on port " + port, e);
      }
    }

    private Random random() {
      return seed == null ? new Random() : new Random(seed);
    }
  }
}
