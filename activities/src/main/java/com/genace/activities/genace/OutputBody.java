package com.genace.activities.genace;

import io.opentelemetry.api.trace.Span;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The body of an output download as the caller reads it. The call's span lasts until the body is
 * closed, and a failure while reading says which download it interrupted (never the URL's query,
 * where pre-signed URLs carry their credentials).
 *
 * <p>The body is bounded in time. The JDK client's request timeout ends with the response headers,
 * and its body stream blocks without limit, so a peer that stops sending (a half-open connection)
 * would park the reading thread for as long as it keeps the socket. A watchdog closes the stream
 * when a read has waited {@code stall} for a byte, or when the download is not over {@code
 * deadline} after its request; closing wakes the blocked reader, which then fails with an {@link
 * HttpTimeoutException}, and closes the connection (its body was not read to the end, so the JDK
 * does not pool it). Time between reads, spent by the caller, is not a stall.
 */
final class OutputBody extends FilterInputStream {

  /** The name of the one daemon thread that checks every body in progress. */
  static final String WATCHDOG_THREAD = "genace-download-watchdog";

  /** One daemon thread checks every body in progress; each check is a few field reads. */
  private static final ScheduledExecutorService WATCHDOG = watchdog();

  /** The finest check: a stall or the deadline is noticed within a quarter of the stall. */
  private static final Duration MIN_CHECK_EVERY = Duration.ofMillis(50);

  private final Span span;
  private final String what;
  private final Duration stall;
  private final Duration deadline;
  private final long stallNanos;
  private final long deadlineAt;
  private volatile ScheduledFuture<?> check;
  private volatile boolean reading;
  private volatile long readingSince;
  private volatile String expired;
  private boolean ended;

  /**
   * The body under watch from now on.
   *
   * @param startedAt {@link System#nanoTime()} when the request was sent: the deadline counts from
   *     there
   */
  static OutputBody watched(
      InputStream body, Span span, String what, Duration stall, Duration deadline, long startedAt) {
    OutputBody watched = new OutputBody(body, span, what, stall, deadline, startedAt);
    long every = Math.max(stall.dividedBy(4).toNanos(), MIN_CHECK_EVERY.toNanos());
    watched.check =
        WATCHDOG.scheduleAtFixedRate(watched::check, every, every, TimeUnit.NANOSECONDS);
    return watched;
  }

  private OutputBody(
      InputStream body, Span span, String what, Duration stall, Duration deadline, long startedAt) {
    super(body);
    this.span = span;
    this.what = what;
    this.stall = stall;
    this.deadline = deadline;
    this.stallNanos = stall.toNanos();
    this.deadlineAt = startedAt + deadline.toNanos();
  }

  @Override
  public int read() throws IOException {
    enter();
    try {
      int b = super.read();
      requireInTime();
      return b;
    } catch (IOException e) {
      throw failed(e);
    } finally {
      reading = false;
    }
  }

  @Override
  public int read(byte[] buffer, int offset, int length) throws IOException {
    enter();
    try {
      int n = super.read(buffer, offset, length);
      requireInTime();
      return n;
    } catch (IOException e) {
      throw failed(e);
    } finally {
      reading = false;
    }
  }

  /** Skipped bytes are read, under the same watch. */
  @Override
  public long skip(long n) throws IOException {
    return readNBytes((int) Math.min(Math.max(n, 0), 8192)).length;
  }

  @Override
  public boolean markSupported() {
    return false;
  }

  @Override
  public void close() throws IOException {
    stopWatching();
    try {
      super.close();
    } finally {
      if (!ended) {
        ended = true;
        span.end();
      }
    }
  }

  /** Closes the body but leaves the span to the caller, who ends it with an error. */
  void discard() {
    stopWatching();
    try {
      in.close();
    } catch (IOException e) {
      // nothing more to read from it either way
    }
  }

  private void stopWatching() {
    ScheduledFuture<?> scheduled = check;
    if (scheduled != null) {
      scheduled.cancel(false);
    }
  }

  private void enter() throws IOException {
    requireInTime();
    readingSince = System.nanoTime();
    reading = true;
  }

  /** On the watchdog's thread. */
  private void check() {
    long now = System.nanoTime();
    String reason = null;
    if (now - deadlineAt >= 0) {
      reason = "not complete within " + deadline;
    } else if (reading && now - readingSince >= stallNanos) {
      reason = "no byte for " + stall;
    }
    if (reason == null) {
      return;
    }
    expired = reason;
    stopWatching();
    try {
      // Wakes a reader blocked in the JDK's body stream, and gives the connection up.
      in.close();
    } catch (IOException | RuntimeException e) {
      // The stream is unusable either way; the reader fails on the expiry.
    }
  }

  private void requireInTime() throws Expired {
    String reason = expired;
    if (reason != null) {
      throw new Expired(what + " timed out: " + reason, null);
    }
  }

  private IOException failed(IOException e) {
    IOException shown;
    if (e instanceof Expired) {
      shown = e;
    } else if (expired != null) {
      shown = new Expired(what + " timed out: " + expired, e);
    } else {
      String message = e.getMessage();
      shown =
          new IOException(
              what
                  + " failed while reading the body: "
                  + e.getClass().getSimpleName()
                  + (message == null ? "" : " (" + message + ")"),
              e);
    }
    HttpSpans.failed(span, shown);
    return shown;
  }

  /** The body took too long: the stream was closed under the reader. */
  private static final class Expired extends HttpTimeoutException {
    Expired(String message, Throwable cause) {
      super(message);
      if (cause != null) {
        initCause(cause);
      }
    }
  }

  private static ScheduledExecutorService watchdog() {
    ScheduledThreadPoolExecutor executor =
        new ScheduledThreadPoolExecutor(
            1,
            runnable -> {
              Thread thread = Executors.defaultThreadFactory().newThread(runnable);
              thread.setName(WATCHDOG_THREAD);
              thread.setDaemon(true);
              return thread;
            });
    executor.setRemoveOnCancelPolicy(true);
    return executor;
  }
}
