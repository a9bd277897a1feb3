package com.genace.client;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import java.io.IOException;
import java.time.Duration;

/**
 * What an application asks for: an operation id of its own, a model and a JSON input object.
 *
 * <p>On the wire (the workflow's start input, docs/contract/start-input.schema.json) the input is
 * the JSON object itself, {@code "input": {"prompt": "a red fox"}}. Reading never fails on a wrong
 * input: what is not one JSON object is kept as is, for {@link #validate()} to refuse by name.
 *
 * @param inputJson the input object as JSON text (on the wire: {@code input}, as an object)
 * @param dispatchTimeoutSeconds how long the POST may take before its outcome counts as unknown
 *     (and goes to review); null for {@link #DEFAULT_DISPATCH_TIMEOUT}
 * @param account whose spending allowance the operation draws on; null for {@link #DEFAULT_ACCOUNT}
 */
public record GenerationRequest(
    String operationId,
    String model,
    @JsonIgnore String inputJson,
    Integer dispatchTimeoutSeconds,
    String account) {

  public static final String DEFAULT_ACCOUNT = "default";

  /** The longest model or account name: the ledger's limit for names it indexes and logs. */
  public static final int MAX_NAME_LENGTH = 200;

  /**
   * Decimals are read as they are written (every digit, and {@code 7.0} stays {@code 7.0}), so that
   * Genace gets the input the application sent.
   */
  private static final ObjectMapper JSON =
      new ObjectMapper()
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
          .configure(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES, false);

  /**
   * Reads the input object with its decimals exact, whatever mapper reads the rest of the request
   * (the SDK's reads them as doubles). Reads the one value in place, so no trailing-token check.
   */
  static final class ExactJson extends JsonDeserializer<JsonNode> {
    private static final ObjectMapper EXACT =
        new ObjectMapper()
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .configure(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES, false);

    @Override
    public JsonNode deserialize(JsonParser parser, DeserializationContext context)
        throws IOException {
      return EXACT.readTree(parser);
    }
  }

  public static final Duration DEFAULT_DISPATCH_TIMEOUT = Duration.ofMinutes(2);
  public static final Duration MIN_DISPATCH_TIMEOUT = Duration.ofSeconds(1);
  public static final Duration MAX_DISPATCH_TIMEOUT = Duration.ofMinutes(30);

  /**
   * Reads the wire shape.
   *
   * @param input the input object ({@code input}); null or JSON null when absent
   */
  @JsonCreator
  static GenerationRequest fromWire(
      @JsonProperty("operationId") String operationId,
      @JsonProperty("model") String model,
      @JsonProperty("input") @JsonDeserialize(using = ExactJson.class) JsonNode input,
      @JsonProperty("dispatchTimeoutSeconds") Integer dispatchTimeoutSeconds,
      @JsonProperty("account") String account) {
    String inputJson =
        input == null || input.isMissingNode() || input.isNull() ? null : input.toString();
    return new GenerationRequest(operationId, model, inputJson, dispatchTimeoutSeconds, account);
  }

  /**
   * The input as the wire carries it: the JSON object. Text that is not JSON (a request built in
   * Java without validation) is carried as a JSON string, which validation refuses.
   */
  @JsonProperty("input")
  public JsonNode input() {
    if (inputJson == null) {
      return null;
    }
    try {
      return JSON.readTree(inputJson);
    } catch (JsonProcessingException e) {
      return JSON.getNodeFactory().textNode(inputJson);
    }
  }

  public GenerationRequest(String operationId, String model, String inputJson) {
    this(operationId, model, inputJson, null, null);
  }

  public GenerationRequest(
      String operationId, String model, String inputJson, Integer dispatchTimeoutSeconds) {
    this(operationId, model, inputJson, dispatchTimeoutSeconds, null);
  }

  /** The account, or {@link #DEFAULT_ACCOUNT}. */
  public String accountOrDefault() {
    return account == null || account.isBlank() ? DEFAULT_ACCOUNT : account;
  }

  /** The dispatch activity's start-to-close timeout. */
  public Duration dispatchTimeout() {
    return dispatchTimeoutSeconds == null
        ? DEFAULT_DISPATCH_TIMEOUT
        : Duration.ofSeconds(dispatchTimeoutSeconds);
  }

  /**
   * Checks the request as a whole before anything is started.
   *
   * @throws IllegalArgumentException naming the first field that is wrong: a blank id, a blank or
   *     over-long model or account, an input that is not exactly one JSON object (trailing content
   *     is refused, not dropped), a dispatch timeout out of range
   */
  public void validate() {
    if (operationId == null || operationId.isBlank()) {
      throw new IllegalArgumentException("operation id must not be blank");
    }
    requireName("model", model);
    if (account != null) {
      requireName("account", account);
    }
    if (inputJson == null) {
      throw new IllegalArgumentException("input is missing: it must be a JSON object");
    }
    JsonNode input;
    try {
      input = JSON.readTree(inputJson);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("input is not valid JSON: " + e.getOriginalMessage());
    }
    if (input == null || !input.isObject()) {
      throw new IllegalArgumentException("input must be a JSON object");
    }
    Duration timeout = dispatchTimeout();
    if (timeout.compareTo(MIN_DISPATCH_TIMEOUT) < 0
        || timeout.compareTo(MAX_DISPATCH_TIMEOUT) > 0) {
      throw new IllegalArgumentException(
          "dispatch timeout must be between "
              + MIN_DISPATCH_TIMEOUT.toSeconds()
              + " and "
              + MAX_DISPATCH_TIMEOUT.toSeconds()
              + " seconds");
    }
  }

  private static void requireName(String field, String value) {
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException(field + " must not be blank");
    }
    if (value.length() > MAX_NAME_LENGTH) {
      throw new IllegalArgumentException(
          field + " is longer than " + MAX_NAME_LENGTH + " characters");
    }
    if (value.chars().anyMatch(Character::isISOControl)) {
      throw new IllegalArgumentException(field + " must not contain control characters");
    }
  }
}
