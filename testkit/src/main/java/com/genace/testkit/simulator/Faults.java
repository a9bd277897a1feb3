package com.genace.testkit.simulator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * What the simulator does wrong, and how slowly. On the wire ({@code POST /_sim/faults}) the fields
 * use the snake_case names in the constants below.
 *
 * @param jobDurationMs time from creation to a terminal status; queued for the first 20%, then
 *     running
 * @param failRate probability, decided at creation, that a job ends failed instead of succeeded
 * @param latencyMs delay added before answering every {@code /v1} request
 * @param rate429 probability that a {@code /v1} request is answered 429 ({@code Retry-After:
 *     retryAfterS}); nothing is created
 * @param rate5xx probability that a {@code /v1} request is answered 503; nothing is created
 * @param losePostResponseNext the next N creates make the job and then drop the connection without
 *     answering; counts down as it is used
 * @param refuseStatus how {@code refuseRate} refuses: 401 (a revoked key: every {@code /v1}
 *     request), 403 (an account barred from the API: every {@code /v1} request) or 402 (an empty
 *     credit balance: creates only, reads are free)
 * @param refuseRate probability that a request is refused with {@code refuseStatus}; nothing is
 *     created
 * @param searchEnabled whether {@code GET /v1/generations?operation_id=} is offered (404 when not)
 * @param searchLagMs how long after its creation a job appears in that search
 * @param rate429Prefix when not empty, {@code rate429} applies only to creates whose operation id
 *     starts with it (one account's traffic, when ids carry the account), and to no other request
 * @param retryAfterS the {@code Retry-After} of a 429, in seconds
 */
public record Faults(
    int jobDurationMs,
    double failRate,
    int latencyMs,
    double rate429,
    double rate5xx,
    int losePostResponseNext,
    int refuseStatus,
    double refuseRate,
    boolean searchEnabled,
    int searchLagMs,
    String rate429Prefix,
    int retryAfterS) {

  public static final String JOB_DURATION_MS = "job_duration_ms";
  public static final String FAIL_RATE = "fail_rate";
  public static final String LATENCY_MS = "latency_ms";
  public static final String RATE_429 = "rate_429";
  public static final String RATE_5XX = "rate_5xx";
  public static final String LOSE_POST_RESPONSE_NEXT = "lose_post_response_next";
  public static final String REFUSE_STATUS = "refuse_status";
  public static final String REFUSE_RATE = "refuse_rate";
  public static final String SEARCH_ENABLED = "search_enabled";
  public static final String SEARCH_LAG_MS = "search_lag_ms";
  public static final String RATE_429_PREFIX = "rate_429_prefix";
  public static final String RETRY_AFTER_S = "retry_after_s";

  /** The statuses {@code refuse_status} accepts. */
  public static final List<Integer> REFUSE_STATUSES = List.of(401, 402, 403);

  /** Jobs take two seconds and always succeed; no latency, no injected errors. */
  public static final Faults DEFAULT =
      new Faults(2000, 0.0, 0, 0.0, 0.0, 0, 401, 0.0, true, 0, "", 1);

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
    requireCount(SEARCH_LAG_MS, searchLagMs);
    if (rate429Prefix == null) {
      throw new IllegalArgumentException(RATE_429_PREFIX + " must be a string");
    }
    requireCount(RETRY_AFTER_S, retryAfterS);
  }

  /** The faults without the search's switches: the search offered, without lag. */
  public Faults(
      int jobDurationMs,
      double failRate,
      int latencyMs,
      double rate429,
      double rate5xx,
      int losePostResponseNext,
      int refuseStatus,
      double refuseRate) {
    this(
        jobDurationMs,
        failRate,
        latencyMs,
        rate429,
        rate5xx,
        losePostResponseNext,
        refuseStatus,
        refuseRate,
        true,
        0,
        "",
        1);
  }

  /** The faults as one mutable copy: each {@code with} method changes one field of it. */
  private static final class Draft {
    int jobDurationMs;
    double failRate;
    int latencyMs;
    double rate429;
    double rate5xx;
    int losePostResponseNext;
    int refuseStatus;
    double refuseRate;
    boolean searchEnabled;
    int searchLagMs;
    String rate429Prefix;
    int retryAfterS;

    Draft(Faults f) {
      jobDurationMs = f.jobDurationMs;
      failRate = f.failRate;
      latencyMs = f.latencyMs;
      rate429 = f.rate429;
      rate5xx = f.rate5xx;
      losePostResponseNext = f.losePostResponseNext;
      refuseStatus = f.refuseStatus;
      refuseRate = f.refuseRate;
      searchEnabled = f.searchEnabled;
      searchLagMs = f.searchLagMs;
      rate429Prefix = f.rate429Prefix;
      retryAfterS = f.retryAfterS;
    }

    Faults build() {
      return new Faults(
          jobDurationMs,
          failRate,
          latencyMs,
          rate429,
          rate5xx,
          losePostResponseNext,
          refuseStatus,
          refuseRate,
          searchEnabled,
          searchLagMs,
          rate429Prefix,
          retryAfterS);
    }
  }

  /** These faults with {@code change} applied, checked as any new faults are. */
  private Faults with(Consumer<Draft> change) {
    Draft draft = new Draft(this);
    change.accept(draft);
    return draft.build();
  }

  public Faults withJobDurationMs(int value) {
    return with(d -> d.jobDurationMs = value);
  }

  public Faults withFailRate(double value) {
    return with(d -> d.failRate = value);
  }

  public Faults withLatencyMs(int value) {
    return with(d -> d.latencyMs = value);
  }

  public Faults withRate429(double value) {
    return with(d -> d.rate429 = value);
  }

  public Faults withRate5xx(double value) {
    return with(d -> d.rate5xx = value);
  }

  public Faults withLosePostResponseNext(int value) {
    return with(d -> d.losePostResponseNext = value);
  }

  public Faults withRefuseStatus(int value) {
    return with(d -> d.refuseStatus = value);
  }

  public Faults withRefuseRate(double value) {
    return with(d -> d.refuseRate = value);
  }

  public Faults withSearchEnabled(boolean value) {
    return with(d -> d.searchEnabled = value);
  }

  public Faults withSearchLagMs(int value) {
    return with(d -> d.searchLagMs = value);
  }

  public Faults withRate429Prefix(String value) {
    return with(d -> d.rate429Prefix = value);
  }

  public Faults withRetryAfterS(int value) {
    return with(d -> d.retryAfterS = value);
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
            case SEARCH_ENABLED -> result.withSearchEnabled(flag(name, value));
            case SEARCH_LAG_MS -> result.withSearchLagMs(count(name, value));
            case RATE_429_PREFIX -> result.withRate429Prefix(text(name, value));
            case RETRY_AFTER_S -> result.withRetryAfterS(count(name, value));
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
    json.put(SEARCH_ENABLED, searchEnabled);
    json.put(SEARCH_LAG_MS, searchLagMs);
    json.put(RATE_429_PREFIX, rate429Prefix);
    json.put(RETRY_AFTER_S, retryAfterS);
    return json;
  }

  private static int count(String name, JsonNode value) {
    if (!value.isIntegralNumber() || !value.canConvertToInt()) {
      throw new IllegalArgumentException(name + " must be an integer >= 0");
    }
    return value.intValue();
  }

  private static String text(String name, JsonNode value) {
    if (!value.isTextual()) {
      throw new IllegalArgumentException(name + " must be a string");
    }
    return value.textValue();
  }

  private static boolean flag(String name, JsonNode value) {
    if (!value.isBoolean()) {
      throw new IllegalArgumentException(name + " must be true or false");
    }
    return value.booleanValue();
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
