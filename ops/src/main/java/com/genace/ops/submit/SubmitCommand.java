package com.genace.ops.submit;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.genace.activities.allowance.AllowancePolicy;
import com.genace.activities.ledger.Identifiers;
import com.genace.client.GenerationClient;
import com.genace.client.GenerationRequest;
import com.genace.client.OperationConflictException;
import com.genace.client.Urgency;
import com.genace.client.connection.TemporalSettings;
import com.genace.ops.ConfigurationException;
import com.genace.ops.Environment;
import com.genace.worker.telemetry.Telemetry;
import com.genace.worker.temporal.TemporalConnection;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.UUID;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code genace submit}: starts one operation, idempotently by operation id. */
@Command(
    name = "submit",
    mixinStandardHelpOptions = true,
    description = {
      "Start a generation operation and print its operation id.",
      "Starting the same --operation-id again with the same request joins the existing"
          + " operation: it is never dispatched twice. The same id with another model, input or"
          + " account is refused.",
      "Connects to TEMPORAL_ADDRESS (default 127.0.0.1:7233), namespace TEMPORAL_NAMESPACE"
          + " (default 'default').",
      "Exit codes: 0 started or joined, 1 Temporal unreachable, or the id taken by another"
          + " request, 2 bad usage (an --input that is not exactly one JSON object, a --model or"
          + " --account over 200 characters)."
    })
public final class SubmitCommand implements Runnable {

  private static final ObjectMapper STRICT_JSON =
      new ObjectMapper().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

  private final Environment env;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Option(
      names = "--model",
      required = true,
      paramLabel = "MODEL",
      description = "The Genace model.")
  String model;

  @Option(
      names = "--input",
      required = true,
      paramLabel = "JSON",
      description = "The model's input: a JSON object, e.g. '{\"prompt\":\"a red fox\"}'.")
  String input;

  @Option(
      names = "--operation-id",
      paramLabel = "ID",
      description = "Your id for the operation (default: a new UUID).")
  String operationId;

  @Option(
      names = "--account",
      paramLabel = "ACCOUNT",
      description = "Whose spending allowance the operation draws on (default: default).")
  String account;

  @Option(
      names = "--dispatch-timeout",
      paramLabel = "SECONDS",
      description =
          "How long the POST may take before its outcome counts as unknown and goes to review"
              + " (1..1800; default 120).")
  Integer dispatchTimeoutSeconds;

  @Option(
      names = "--priority",
      paramLabel = "URGENCY",
      description =
          "interactive (someone waits for it), normal or batch: which waiting tasks workers take"
              + " first (default normal).",
      defaultValue = "normal")
  String priority;

  SubmitCommand(Environment env) {
    this.env = env;
  }

  @Override
  public void run() {
    String id = operationId == null ? UUID.randomUUID().toString() : operationId;
    try {
      Identifiers.requireOperationId(id);
    } catch (IllegalArgumentException e) {
      throw usage("--operation-id: " + e.getMessage());
    }
    GenerationRequest request =
        new GenerationRequest(id, model, canonicalJson(input), dispatchTimeoutSeconds, account);
    Urgency urgency;
    try {
      urgency = Urgency.fromWire(priority);
    } catch (IllegalArgumentException e) {
      throw usage("--priority: " + e.getMessage());
    }
    int maxInputBytes = maxInputBytes();
    requireCostedModel(model);
    try {
      request.validate(maxInputBytes);
    } catch (IllegalArgumentException e) {
      throw usage(asOption(e.getMessage()));
    }
    TemporalSettings settings = TemporalSettings.fromEnvironment(env.variables());
    // With OTEL_* exporters configured, the operation's trace starts here.
    try (Telemetry telemetry = Telemetry.install(env.variables());
        TemporalConnection temporal = TemporalConnection.open(settings)) {
      GenerationClient.Started started;
      try {
        started =
            temporal.generationClient().withMaxInputBytes(maxInputBytes).start(request, urgency);
      } catch (OperationConflictException e) {
        throw new IllegalStateException(e.getMessage(), e);
      }
      spec.commandLine().getOut().println(id);
      spec.commandLine()
          .getErr()
          .println(
              started.alreadyExisted()
                  ? "operation "
                      + id
                      + " was already started with the same request (workflow "
                      + started.workflowId()
                      + "); joined it, nothing is dispatched again"
                  : "started operation " + id + " (workflow " + started.workflowId() + ")");
    }
  }

  /** The request's words for a field, as the option that sets it: "input ..." -> "--input ...". */
  private static String asOption(String problem) {
    for (String field :
        new String[] {"operation id", "input", "model", "account", "dispatch timeout"}) {
      if (problem.startsWith(field + " ")) {
        return "--" + field.replace(' ', '-') + problem.substring(field.length());
      }
    }
    return problem;
  }

  /** {@code GENACE_MAX_INPUT_BYTES}, or the client's default. */
  private int maxInputBytes() {
    Optional<String> set = env.get("GENACE_MAX_INPUT_BYTES");
    if (set.isEmpty()) {
      return GenerationRequest.DEFAULT_MAX_INPUT_BYTES;
    }
    try {
      int value = Integer.parseInt(set.get().trim());
      if (value >= 1 && value <= GenerationRequest.MAX_INPUT_BYTES_CEILING) {
        return value;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new ConfigurationException(
        "GENACE_MAX_INPUT_BYTES must be a number of bytes between 1 and "
            + GenerationRequest.MAX_INPUT_BYTES_CEILING
            + ", not '"
            + set.get()
            + "'");
  }

  /**
   * With a cost table ({@code GENACE_MODEL_COSTS}), a model outside it is refused here: the
   * worker's dispatch would refuse it too, and nothing should start for it.
   */
  private void requireCostedModel(String model) {
    Optional<String> table = env.get("GENACE_MODEL_COSTS").filter(t -> !t.isBlank());
    if (table.isEmpty() || model == null) {
      return;
    }
    Map<String, Long> costs;
    try {
      costs = AllowancePolicy.parseCosts(table.get());
    } catch (IllegalArgumentException e) {
      throw new ConfigurationException("GENACE_MODEL_COSTS: " + e.getMessage());
    }
    if (!costs.containsKey(model)) {
      throw usage(
          "--model '"
              + model
              + "' is not in the cost table (GENACE_MODEL_COSTS: "
              + String.join(", ", new TreeSet<>(costs.keySet()))
              + ")");
    }
  }

  /** The input as compact JSON; what is not one JSON object is left for validation to refuse. */
  private static String canonicalJson(String value) {
    try {
      JsonNode node = STRICT_JSON.readTree(value);
      return node != null && node.isObject() ? node.toString() : value;
    } catch (JsonProcessingException e) {
      return value;
    }
  }

  private CommandLine.ParameterException usage(String message) {
    return new CommandLine.ParameterException(spec.commandLine(), message);
  }
}
