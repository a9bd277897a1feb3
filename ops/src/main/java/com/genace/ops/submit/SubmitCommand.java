package com.genace.ops.submit;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.genace.ledger.Identifiers;
import com.genace.ops.Environment;
import com.genace.worker.telemetry.Telemetry;
import com.genace.worker.temporal.TemporalConnection;
import com.genace.worker.temporal.TemporalSettings;
import com.genace.workflows.GenerationClient;
import com.genace.workflows.GenerationRequest;
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
      "Starting the same --operation-id again joins the existing operation: it is never"
          + " dispatched twice.",
      "Connects to TEMPORAL_ADDRESS (default 127.0.0.1:7233), namespace TEMPORAL_NAMESPACE"
          + " (default 'default').",
      "Exit codes: 0 started or joined, 1 Temporal unreachable or refused, 2 bad usage"
          + " (including --input that is not a JSON object)."
    })
public final class SubmitCommand implements Runnable {

  private static final ObjectMapper JSON = new ObjectMapper();

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

  SubmitCommand(Environment env) {
    this.env = env;
  }

  @Override
  public void run() {
    String inputJson = requireJsonObject(input);
    String id = operationId == null ? UUID.randomUUID().toString() : operationId;
    try {
      Identifiers.requireOperationId(id);
    } catch (IllegalArgumentException e) {
      throw usage("--operation-id: " + e.getMessage());
    }
    if (model.isBlank()) {
      throw usage("--model must not be blank");
    }
    long maxTimeout = GenerationRequest.MAX_DISPATCH_TIMEOUT.toSeconds();
    if (dispatchTimeoutSeconds != null
        && (dispatchTimeoutSeconds < 1 || dispatchTimeoutSeconds > maxTimeout)) {
      throw usage("--dispatch-timeout must be between 1 and " + maxTimeout + " seconds");
    }
    TemporalSettings settings = TemporalSettings.fromEnvironment(env.variables());
    // With OTEL_* exporters configured, the operation's trace starts here.
    try (Telemetry telemetry = Telemetry.install(env.variables());
        TemporalConnection temporal = TemporalConnection.open(settings)) {
      GenerationClient.Started started =
          temporal
              .generationClient()
              .start(new GenerationRequest(id, model, inputJson, dispatchTimeoutSeconds, account));
      spec.commandLine().getOut().println(id);
      spec.commandLine()
          .getErr()
          .println(
              started.alreadyExisted()
                  ? "operation "
                      + id
                      + " was already started (workflow "
                      + started.workflowId()
                      + "); joined it, nothing is dispatched again"
                  : "started operation " + id + " (workflow " + started.workflowId() + ")");
    }
  }

  private String requireJsonObject(String value) {
    JsonNode node;
    try {
      node = JSON.readTree(value);
    } catch (JsonProcessingException e) {
      throw usage("--input is not valid JSON: " + e.getOriginalMessage());
    }
    if (node == null || !node.isObject()) {
      throw usage("--input must be a JSON object, like '{\"prompt\":\"a red fox\"}'");
    }
    return node.toString();
  }

  private CommandLine.ParameterException usage(String message) {
    return new CommandLine.ParameterException(spec.commandLine(), message);
  }
}
