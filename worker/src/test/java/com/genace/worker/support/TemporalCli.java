package com.genace.worker.support;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** The official {@code temporal} CLI as an operator runs it, with JSON output, bounded in time. */
public final class TemporalCli {

  public static final Duration TIMEOUT = Duration.ofSeconds(30);

  private static final ObjectMapper JSON = new ObjectMapper();

  private final String binary;
  private final String address;
  private final String namespace;

  public TemporalCli(String binary, String address, String namespace) {
    this.binary = binary;
    this.address = address;
    this.namespace = namespace;
  }

  /** {@code temporal workflow list --query Q -o json}: the executions visibility returns. */
  public List<JsonNode> listWorkflows(String query) throws IOException, InterruptedException {
    String output = run("workflow", "list", "--query", query);
    List<JsonNode> executions = new ArrayList<>();
    // The CLI prints a JSON array, or one object per line, depending on the version.
    try (var parser = JSON.createParser(output)) {
      var values = JSON.readValues(parser, JsonNode.class);
      while (values.hasNext()) {
        JsonNode value = values.next();
        if (value.isArray()) {
          value.forEach(executions::add);
        } else {
          executions.add(value);
        }
      }
    }
    return executions;
  }

  /** {@code temporal workflow describe -w ID -o json}. */
  public JsonNode describeWorkflow(String workflowId) throws IOException, InterruptedException {
    return JSON.readTree(run("workflow", "describe", "--workflow-id", workflowId));
  }

  /**
   * {@code temporal workflow metadata -w ID -o json}: the workflow's current details and
   * definition, as {@code {"queryResult": [{"currentDetails": ..., "definition": ...}]}}.
   */
  public JsonNode workflowMetadata(String workflowId) throws IOException, InterruptedException {
    return JSON.readTree(run("workflow", "metadata", "--workflow-id", workflowId));
  }

  /** {@code temporal workflow signal -w ID --name NAME --input JSON}, as an operator resolves. */
  public void signal(String workflowId, String name, String inputJson)
      throws IOException, InterruptedException {
    run("workflow", "signal", "--workflow-id", workflowId, "--name", name, "--input", inputJson);
  }

  /**
   * {@code temporal workflow update execute -w ID --name NAME --input JSON}: the update's result.
   *
   * @throws IllegalStateException with the CLI's error when the workflow refuses the update
   */
  public String update(String workflowId, String name, String inputJson)
      throws IOException, InterruptedException {
    return run(
        "workflow",
        "update",
        "execute",
        "--workflow-id",
        workflowId,
        "--name",
        name,
        "--input",
        inputJson);
  }

  private String run(String... command) throws IOException, InterruptedException {
    List<String> args = new ArrayList<>(List.of(binary));
    args.addAll(List.of(command));
    args.addAll(
        List.of(
            "--address",
            address,
            "--namespace",
            namespace,
            "--output",
            "json",
            "--command-timeout",
            TIMEOUT.toSeconds() + "s"));
    Path out = Files.createTempFile("temporal-cli", ".out");
    Path err = Files.createTempFile("temporal-cli", ".err");
    try {
      Process process =
          new ProcessBuilder(args)
              .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))
              .redirectOutput(out.toFile())
              .redirectError(err.toFile())
              .start();
      if (!process.waitFor(TIMEOUT.toSeconds() + 10, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new IllegalStateException(String.join(" ", args) + " did not finish in time");
      }
      if (process.exitValue() != 0) {
        throw new IllegalStateException(
            String.join(" ", args)
                + " exited "
                + process.exitValue()
                + ": "
                + Files.readString(err).strip());
      }
      return Files.readString(out);
    } finally {
      Files.deleteIfExists(out);
      Files.deleteIfExists(err);
    }
  }
}
