package com.genace.examples;

import com.genace.client.DeliveredArtifact;
import com.genace.client.GenerationClient;
import com.genace.client.GenerationRequest;
import com.genace.client.OperationResult;
import com.genace.client.OperationTimeoutException;
import com.genace.client.OperationView;
import com.genace.client.connection.GenerationConnection;
import com.genace.client.model.Phase;
import java.time.Duration;
import java.util.List;
import java.util.UUID;

/**
 * A service's use of genace-client: start an operation, wait for its result, list the operations
 * waiting in review. Temporal is {@code TEMPORAL_ADDRESS} (default {@code 127.0.0.1:7233}, as
 * {@code ./genace dev} starts it) and {@code TEMPORAL_NAMESPACE} (default {@code default}), with
 * TLS, a client certificate or an API key when the other {@code TEMPORAL_*} variables ask for them
 * (docs/clients.md); the operation id is the first argument, or a new one. Exits 0 when the
 * operation was delivered.
 *
 * <pre>
 * java -cp 'target/genace-client-example.jar:target/lib/*' com.genace.examples.GenerationExample
 * </pre>
 */
public final class GenerationExample {

  private GenerationExample() {}

  public static void main(String[] args) {
    String operationId = args.length > 0 ? args[0] : "example-" + UUID.randomUUID();

    // A service opens its connection once and shares it: the TEMPORAL_* variables say where
    // Temporal is and how to authenticate (TLS, a client certificate, an API key), and files named
    // there are read again when they change. GenerationClient is a thin, thread-safe layer over it.
    boolean delivered;
    try (GenerationConnection temporal = GenerationConnection.fromEnvironment()) {
      delivered = run(temporal.generationClient(), operationId);
    }
    System.exit(delivered ? 0 : 1);
  }

  private static boolean run(GenerationClient generations, String operationId) {
    GenerationClient.Started started =
        generations.start(
            new GenerationRequest(operationId, "image-v1", "{\"prompt\":\"a red fox\"}"));
    System.out.println(
        "started " + operationId + (started.alreadyExisted() ? " (joined the running one)" : ""));

    OperationResult result;
    try {
      result = generations.awaitResult(operationId, Duration.ofMinutes(2));
    } catch (OperationTimeoutException e) {
      System.out.println("not ended in time: " + e.getMessage());
      return false;
    }
    System.out.println(
        "result: "
            + result.phase().wire()
            + ", remote job "
            + result.remoteJobId()
            + ", "
            + result.artifacts().size()
            + " artifact(s)"
            + (result.phase() == Phase.DELIVERED ? "" : ": " + result.detail()));
    for (DeliveredArtifact artifact : result.artifacts()) {
      System.out.println("  " + artifact.uri() + " " + artifact.bytes() + " bytes");
    }

    List<String> inReview = generations.operationsInReview(20);
    System.out.println("operations in review: " + inReview.size());
    for (String id : inReview) {
      OperationView view = generations.describe(id);
      System.out.println(
          "  "
              + id
              + ": "
              + (view.review() == null ? "-" : view.review().reason().wire())
              + (view.awaitsOperator() ? ", awaits an operator" : ", gathering evidence"));
    }
    return result.phase() == Phase.DELIVERED;
  }
}
