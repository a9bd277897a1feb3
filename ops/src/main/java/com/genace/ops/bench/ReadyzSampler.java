package com.genace.ops.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Asks a worker's {@code /readyz} every {@value #INTERVAL_MS} ms, as a platform's probe would, and
 * keeps each answer's latency (a probe that fails or times out counts as its timeout).
 */
final class ReadyzSampler implements AutoCloseable {

  static final int INTERVAL_MS = 200;
  static final Duration TIMEOUT = Duration.ofSeconds(5);

  private final URI url;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();
  private final List<Double> latencies = new ArrayList<>();
  private long notReady;
  private final ScheduledExecutorService timer =
      Executors.newSingleThreadScheduledExecutor(
          runnable -> {
            Thread thread = new Thread(runnable, "bench-readyz");
            thread.setDaemon(true);
            return thread;
          });

  ReadyzSampler(URI url) {
    this.url = url;
    timer.scheduleWithFixedDelay(this::probe, 0, INTERVAL_MS, TimeUnit.MILLISECONDS);
  }

  private void probe() {
    long started = System.nanoTime();
    boolean ready;
    try {
      ready =
          http.send(
                      HttpRequest.newBuilder(url).timeout(TIMEOUT).build(),
                      HttpResponse.BodyHandlers.discarding())
                  .statusCode()
              == 200;
    } catch (IOException e) {
      ready = false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    }
    double millis = Figures.millis(System.nanoTime() - started);
    synchronized (this) {
      latencies.add(millis);
      if (!ready) {
        notReady++;
      }
    }
  }

  synchronized Double p99() {
    return Figures.percentile(latencies, 99);
  }

  synchronized long samples() {
    return latencies.size();
  }

  synchronized long notReady() {
    return notReady;
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
