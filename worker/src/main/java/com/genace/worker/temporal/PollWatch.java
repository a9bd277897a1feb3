package com.genace.worker.temporal;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ForwardingClientCall;
import io.grpc.ForwardingClientCallListener;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Watches this worker's task-queue polls on the gRPC channel, because the Temporal SDK only logs a
 * refused poll and keeps retrying: a worker whose every poll is refused (identity too long,
 * credentials, namespace, server unreachable) would otherwise look ready.
 *
 * <p>Polls are failing when the latest one ended in an error other than the ones a healthy long
 * poll ends with, and nothing since shows the server accepting polls again: a poll that completed,
 * or one started after the failure that has been waiting on the server for {@link #ACCEPTED_AFTER}
 * (a refused poll comes back at once; an accepted one waits for work).
 */
public final class PollWatch implements ClientInterceptor {

  /** How long a poll must wait on the server to count as accepted. */
  static final Duration ACCEPTED_AFTER = Duration.ofSeconds(2);

  /** Why polls fail, for readiness and the status document. */
  public record Failure(String code, String description, Instant at) {
    /** One line for the status document, e.g. {@code INVALID_ARGUMENT: Identity length...}. */
    public String summary() {
      return description == null || description.isBlank() ? code : code + ": " + description;
    }
  }

  private final Clock clock;
  private volatile Failure failure;
  private volatile Instant lastSuccess;
  private final AtomicLong ids = new AtomicLong();
  private final ConcurrentHashMap<Long, Instant> waiting = new ConcurrentHashMap<>();

  public PollWatch(Clock clock) {
    this.clock = clock;
  }

  /** The failure that polls are failing with now, if they are. */
  public Optional<Failure> failing() {
    Failure current = failure;
    if (current == null) {
      return Optional.empty();
    }
    Instant success = lastSuccess;
    if (success != null && success.isAfter(current.at())) {
      return Optional.empty();
    }
    Instant acceptedBy = clock.instant().minus(ACCEPTED_AFTER);
    boolean accepted =
        waiting.values().stream()
            .anyMatch(start -> start.isAfter(current.at()) && !start.isAfter(acceptedBy));
    return accepted ? Optional.empty() : Optional.of(current);
  }

  @Override
  public <Q, R> ClientCall<Q, R> interceptCall(
      MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
    ClientCall<Q, R> call = next.newCall(method, options);
    if (!isPoll(method.getBareMethodName())) {
      return call;
    }
    return new ForwardingClientCall.SimpleForwardingClientCall<>(call) {
      @Override
      public void start(Listener<R> listener, Metadata headers) {
        long id = ids.incrementAndGet();
        waiting.put(id, clock.instant());
        super.start(
            new ForwardingClientCallListener.SimpleForwardingClientCallListener<>(listener) {
              @Override
              public void onClose(Status status, Metadata trailers) {
                waiting.remove(id);
                record(status);
                super.onClose(status, trailers);
              }
            },
            headers);
      }
    };
  }

  private void record(Status status) {
    switch (status.getCode()) {
      case OK -> lastSuccess = clock.instant();
      // A long poll that ran out of time, or one the worker itself cancelled (shutdown,
      // suspended polling): the server accepted it.
      case DEADLINE_EXCEEDED, CANCELLED -> lastSuccess = clock.instant();
      default ->
          failure = new Failure(status.getCode().name(), status.getDescription(), clock.instant());
    }
  }

  private static boolean isPoll(String method) {
    return method != null && method.startsWith("Poll") && method.endsWith("TaskQueue");
  }
}
