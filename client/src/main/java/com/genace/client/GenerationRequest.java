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
import com.genace.client.model.IdentifierRule;
import com.genace.client.model.ObjectKeySegments;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;

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

  /**
   * The largest input a client accepts unless configured otherwise ({@code
   * GENACE_MAX_INPUT_BYTES}).
   */
  public static final int DEFAULT_MAX_INPUT_BYTES = 256 * 1024;

  /**
   * The largest input any configuration accepts, and the one the workflow holds every start to: the
   * input is in the history several times (the start, the dispatch's input, each continued run),
   * and Temporal refuses a payload of 2 MiB.
   */
  public static final int MAX_INPUT_BYTES_CEILING = 1024 * 1024;

  /**
   * The longest operation id's object key segment ({@link ObjectKeySegments}), in bytes: with the
   * key's fixed parts and a remote job id's segment of up to 600 bytes (200 characters, each
   * encoded as three) an artifact's key stays within S3's 1,024.
   */
  public static final int MAX_OPERATION_ID_KEY_BYTES = 400;

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
   * Checks the request as a whole before anything is started: its shape ({@link #validateShape})
   * and its bounds, with the input at most {@link #DEFAULT_MAX_INPUT_BYTES}.
   *
   * @throws IllegalArgumentException naming the first field that is wrong
   */
  public void validate() {
    validate(DEFAULT_MAX_INPUT_BYTES);
  }

  /**
   * Checks the request as {@link #validate()} does, with the input at most {@code maxInputBytes}.
   *
   * @throws IllegalArgumentException naming the first field that is wrong
   */
  public void validate(int maxInputBytes) {
    validateShape();
    boundsProblem(maxInputBytes)
        .ifPresent(
            problem -> {
              throw new IllegalArgumentException(problem);
            });
  }

  /**
   * What is over a bound, if anything: an operation id that breaks the ledger's identifier rule or
   * whose object key segment is longer than {@value #MAX_OPERATION_ID_KEY_BYTES} bytes, an input
   * longer than {@code maxInputBytes} (UTF-8).
   */
  public Optional<String> boundsProblem(int maxInputBytes) {
    Optional<String> id = IdentifierRule.problem(operationId, "operation id");
    if (id.isPresent()) {
      return id;
    }
    int keyBytes = ObjectKeySegments.bytes(operationId);
    if (keyBytes > MAX_OPERATION_ID_KEY_BYTES) {
      return Optional.of(
          "operation id is "
              + keyBytes
              + " bytes as an object key segment (percent-encoded); at most "
              + MAX_OPERATION_ID_KEY_BYTES
              + ", so that an artifact's key fits S3's 1,024 bytes");
    }
    long inputBytes = inputJson == null ? 0 : inputJson.getBytes(StandardCharsets.UTF_8).length;
    if (inputBytes > maxInputBytes) {
      return Optional.of(
          "input is "
              + inputBytes
              + " bytes; at most "
              + maxInputBytes
              + " (GENACE_MAX_INPUT_BYTES, up to "
              + MAX_INPUT_BYTES_CEILING
              + ")");
    }
    return Optional.empty();
  }

  /**
   * The request's shape, as 0.1.0 checked it (and the workflow checks every start input).
   *
   * @throws IllegalArgumentException naming the first field that is wrong: a blank id, a blank or
   *     over-long model or account, an input that is not exactly one JSON object (trailing content
   *     is refused, not dropped), a dispatch timeout out of range
   */
  public void validateShape() {
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
