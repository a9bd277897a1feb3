package com.genace.testkit.simulator;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Everything the simulator remembers: jobs, counters and faults. Thread-safe; each operation is
 * atomic on its own, but a {@link #stats()} taken during traffic may mix counters from slightly
 * different moments.
 */
final class SimulatorState {

  private final String apiKey;
  private final Random random;
  private final Map<String, SimulatedJob> jobs = new ConcurrentHashMap<>();
  private final Map<String, AtomicLong> postsByOperation = new ConcurrentHashMap<>();
  private final AtomicReference<Faults> faults;
  private final Faults initialFaults;
  private final AtomicLong postsTotal = new AtomicLong();
  private final AtomicLong getsTotal = new AtomicLong();
  private final AtomicLong jobsCreated = new AtomicLong();
  private final AtomicLong responsesLost = new AtomicLong();
  private final AtomicLong sequence = new AtomicLong();

  /**
   * @param apiKey the only accepted bearer token, or {@code null} to accept any non-blank one
   * @param random source of all randomness; {@link Random} is thread-safe
   */
  SimulatorState(String apiKey, Random random, Faults initialFaults) {
    this.apiKey = apiKey;
    this.random = random;
    this.initialFaults = initialFaults;
    this.faults = new AtomicReference<>(initialFaults);
  }

  /** True for {@code Bearer <token>} with a non-blank token that matches the configured key. */
  boolean isAuthorized(String authorization) {
    if (authorization == null || !authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
      return false;
    }
    String token = authorization.substring(7).trim();
    if (token.isEmpty()) {
      return false;
    }
    // Constant time, as a real gateway would compare secrets.
    return apiKey == null
        || MessageDigest.isEqual(
            token.getBytes(StandardCharsets.UTF_8), apiKey.getBytes(StandardCharsets.UTF_8));
  }

  Faults faults() {
    return faults.get();
  }

  void setFaults(Faults replacement) {
    faults.set(replacement);
  }

  /** Applies a JSON patch atomically; throws (naming the field) and changes nothing if invalid. */
  Faults patchFaults(JsonNode patch) {
    return faults.updateAndGet(current -> current.patchedWith(patch));
  }

  /** Whether a {@code lose_post_response_next} unit is left for the next create. */
  boolean lostResponsePending() {
    return faults.get().losePostResponseNext() > 0;
  }

  /** Takes one unit of {@code lose_post_response_next} if any is left. */
  boolean takeLostResponse() {
    Faults before =
        faults.getAndUpdate(
            f ->
                f.losePostResponseNext() > 0
                    ? f.withLosePostResponseNext(f.losePostResponseNext() - 1)
                    : f);
    return before.losePostResponseNext() > 0;
  }

  /** True with probability {@code p}; never for 0, always for 1. */
  boolean chance(double p) {
    return p > 0 && random.nextDouble() < p;
  }

  void countPost(String operationIdOrNull) {
    postsTotal.incrementAndGet();
    if (operationIdOrNull != null) {
      postsByOperation.computeIfAbsent(operationIdOrNull, id -> new AtomicLong()).incrementAndGet();
    }
  }

  void countGet() {
    getsTotal.incrementAndGet();
  }

  void countLostResponse() {
    responsesLost.incrementAndGet();
  }

  /** Creates a job; its outcome and output count are drawn now. */
  SimulatedJob create(String operationId, String model) {
    Faults current = faults.get();
    byte[] idBytes = new byte[12];
    random.nextBytes(idBytes);
    SimulatedJob job =
        new SimulatedJob(
            "gen_" + HexFormat.of().formatHex(idBytes),
            operationId,
            model,
            sequence.incrementAndGet(),
            Instant.now(),
            System.nanoTime(),
            current.jobDurationMs(),
            chance(current.failRate()),
            1 + random.nextInt(2));
    jobs.put(job.id(), job);
    jobsCreated.incrementAndGet();
    return job;
  }

  Optional<SimulatedJob> job(String id) {
    return Optional.ofNullable(jobs.get(id));
  }

  /** The jobs created for an operation (all jobs for {@code null}), oldest first. */
  List<SimulatedJob> jobsFor(String operationIdOrNull) {
    return jobs.values().stream()
        .filter(job -> operationIdOrNull == null || job.operationId().equals(operationIdOrNull))
        .sorted(Comparator.comparingLong(SimulatedJob::sequence))
        .toList();
  }

  SimulatorStats stats() {
    Map<String, Long> byOperation = new HashMap<>();
    postsByOperation.forEach((id, count) -> byOperation.put(id, count.get()));
    return new SimulatorStats(
        postsTotal.get(), byOperation, getsTotal.get(), jobsCreated.get(), responsesLost.get());
  }

  /** Forgets jobs and counters and restores the faults the simulator started with. */
  void reset() {
    jobs.clear();
    postsByOperation.clear();
    postsTotal.set(0);
    getsTotal.set(0);
    jobsCreated.set(0);
    responsesLost.set(0);
    faults.set(initialFaults);
  }
}
