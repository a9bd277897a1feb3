package com.genace.simulator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Map;

/**
 * What the simulator does wrong, and how slowly. On the wire ({@code POST /_sim/faults}) the fields
 * use the snake_case names in the constants below.
 *
 * @param jobDurationMs time from creation to a terminal status; queued for the first 20%, then
 *     running
 * @param failRate probability, decided at creation, that a job ends failed instead of succeeded
 * @param latencyMs delay added before answering every {@code /v1} request
 * @param rate429 probability that a {@code /v1} request is answered 429 ({@code Retry-After: 1});
 *     nothing is created
 * @param rate5xx probability that a {@code /v1} request is answered 503; nothing is created
 * @param losePostResponseNext the next N creates make the job and then drop the connection without
 *     answering; counts down as it is used
 * @param refuseStatus how {@code refuseRate} refuses: 401 (a revoked key: every {@code /v1}
 *     request), 403 (an account barred from the API: every {@code /v1} request) or 402 (an empty
 *     credit balance: creates only, reads are free)
 * @param refuseRate probability that a request is refused with {@code refuseStatus}; nothing is
 *     created
 */
public record Faults(
    int jobDurationMs,
    double failRate,
    int latencyMs,
    double rate429,
    double rate5xx,
    int losePostResponseNext,
    int refuseStatus,
    double refuseRate) {

  public static final String JOB_DURATION_MS = "job_duration_ms";
  public static final String FAIL_RATE = "fail_rate";
  public static final String LATENCY_MS = "latency_ms";
  public static final String RATE_429 = "rate_429";
  public static final String RATE_5XX = "rate_5xx";
  public static final String LOSE_POST_RESPONSE_NEXT = "lose_post_response_next";
  public static final String REFUSE_STATUS = "refuse_status";
  public static final String REFUSE_RATE = "refuse_rate";

  /** The statuses {@code refuse_status} accepts. */
  public static final List<Integer> REFUSE_STATUSES = List.of(401, 402, 403);

  /** Jobs take two seconds and always succeed; no latency, no injected errors. */
  public static final Faults DEFAULT = new Faults(2000, 0.0, 0, 0.0, 0.0, 0, 401, 0.0);

  public Faults {
    requireCount(JOB_DURATION_MS, jobDurationMs);
    requireProbability(FAIL_RATE, failRate);
    requireCount(LATENCY_MS, latencyMs);
    requireProbability(RATE_429, rate429);
    requireProbability(RATE_5XX, rate5xx);
    requireCount(LOSE_POST_RESPONSE_NEXT, losePostResponseNext);
    if (!REFUSE_STATUSES.contains(refuseStatus)) {
      throw new IllegalArgumentException(REFUSE_STATUS + " must be one of 401, 402, 403");
    }
    requireProbability(REFUSE_RATE, refuseRate);
  }

  public Faults withJobDurationMs(int value) {
    return new Faults(
        value,
        failRate,
        latencyMs,
        rate429,
        rate5xx,
        losePostResponseNext,
        refuseStatus,
        refuseRate);
  }

  public Faults withFailRate(double value) {
    return new Faults(
        jobDurationMs,
        value,
        latencyMs,
        rate429,
        rate5xx,
        losePostResponseNext,
        refuseStatus,
        refuseRate);
  }

  public Faults withLatencyMs(int value) {
    return new Faults(
        jobDurationMs,
        failRate,
        value,
        rate429,
        rate5xx,
        losePostResponseNext,
        refuseStatus,
        refuseRate);
  }

  public Faults withRate429(double value) {
    return new Faults(
        jobDurationMs,
        failRate,
        latencyMs,
        value,
        rate5xx,
        losePostResponseNext,
        refuseStatus,
        refuseRate);
  }

  public Faults withRate5xx(double value) {
    return new Faults(
        jobDurationMs,
        failRate,
        latencyMs,
        rate429,
        value,
        losePostResponseNext,
        refuseStatus,
        refuseRate);
  }

  public Faults withLosePostResponseNext(int value) {
    return new Faults(
        jobDurationMs, failRate, latencyMs, rate429, rate5xx, value, refuseStatus, refuseRate);
  }

  public Faults withRefuseStatus(int value) {
    return new Faults(
        jobDurationMs,
        failRate,
        latencyMs,
        rate429,
        rate5xx,
        losePostResponseNext,
        value,
        refuseRate);
  }

  public Faults withRefuseRate(double value) {
    return new Faults(
        jobDurationMs,
        failRate,
        latencyMs,
        rate429,
        rate5xx,
        losePostResponseNext,
        refuseStatus,
        value);
  }

  /**
   * These faults with the fields present in {@code patch} replaced. All or nothing: any unknown
   * field, wrong type or out-of-range value throws and nothing is applied.
   *
   * @throws IllegalArgumentException naming the offending field
   */
  public Faults patchedWith(JsonNode patch) {
    if (patch == null || !patch.isObject()) {
      throw new IllegalArgumentException("faults must be a JSON object");
    }
    Faults result = this;
    for (Map.Entry<String, JsonNode> field : patch.properties()) {
      String name = field.getKey();
      JsonNode value = field.getValue();
      result =
          switch (name) {
            case JOB_DURATION_MS -> result.withJobDurationMs(count(name, value));
            case FAIL_RATE -> result.withFailRate(probability(name, value));
            case LATENCY_MS -> result.withLatencyMs(count(name, value));
            case RATE_429 -> result.withRate429(probability(name, value));
            case RATE_5XX -> result.withRate5xx(probability(name, value));
            case LOSE_POST_RESPONSE_NEXT -> result.withLosePostResponseNext(count(name, value));
            case REFUSE_STATUS -> result.withRefuseStatus(refusal(value));
            case REFUSE_RATE -> result.withRefuseRate(probability(name, value));
            default -> throw new IllegalArgumentException("unknown fault field '" + name + "'");
          };
    }
    return result;
  }

  /** The wire form, as served by {@code GET /_sim/faults}. */
  public ObjectNode toJson() {
    ObjectNode json = JsonNodeFactory.instance.objectNode();
    json.put(JOB_DURATION_MS, jobDurationMs);
    json.put(FAIL_RATE, failRate);
    json.put(LATENCY_MS, latencyMs);
    json.put(RATE_429, rate429);
    json.put(RATE_5XX, rate5xx);
    json.put(LOSE_POST_RESPONSE_NEXT, losePostResponseNext);
    json.put(REFUSE_STATUS, refuseStatus);
    json.put(REFUSE_RATE, refuseRate);
    return json;
  }

  private static int count(String name, JsonNode value) {
    if (!value.isIntegralNumber() || !value.canConvertToInt()) {
      throw new IllegalArgumentException(name + " must be an integer >= 0");
    }
    return value.intValue();
  }

  private static int refusal(JsonNode value) {
    if (!value.isIntegralNumber()
        || !value.canConvertToInt()
        || !REFUSE_STATUSES.contains(value.intValue())) {
      throw new IllegalArgumentException(REFUSE_STATUS + " must be one of 401, 402, 403");
    }
    return value.intValue();
  }

  private static double probability(String name, JsonNode value) {
    if (!value.isNumber()) {
      throw new IllegalArgumentException(name + " must be a number between 0 and 1");
    }
    return value.doubleValue();
  }

  private static void requireCount(String name, int value) {
    if (value < 0) {
      throw new IllegalArgumentException(name + " must be an integer >= 0");
    }
  }

  private static void requireProbability(String name, double value) {
    if (!(value >= 0.0 && value <= 1.0)) {
      throw new IllegalArgumentException(name + " must be a number between 0 and 1");
    }
  }
}
