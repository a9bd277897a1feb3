package com.genace.ops.bench;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.genace.activities.delivery.ArtifactContent;
import com.genace.activities.delivery.ArtifactKeys;
import com.genace.activities.delivery.ArtifactStore;
import com.genace.activities.genace.CreateOutcome;
import com.genace.activities.genace.CreateRequest;
import com.genace.activities.genace.GenaceClient;
import com.genace.activities.genace.JobOutput;
import com.genace.activities.genace.JobSnapshot;
import com.genace.workflows.model.RemoteStatus;
import io.temporal.failure.ApplicationFailure;
import java.util.List;

/**
 * The naive baseline's activities: the same Genace client and artifact store as the worker's, so
 * that each HTTP call and each copy costs what ours costs; what they leave out is everything that
 * makes ours safe.
 */
final class NaiveSteps implements NaiveWorkflow.Steps {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final GenaceClient genace;
  private final ArtifactStore store;

  NaiveSteps(GenaceClient genace, ArtifactStore store) {
    this.genace = genace;
    this.store = store;
  }

  @Override
  public String submit(String operationId, String model, String inputJson) {
    CreateOutcome outcome = genace.create(new CreateRequest(model, input(inputJson), operationId));
    if (outcome instanceof CreateOutcome.Accepted accepted) {
      return accepted.remoteJobId();
    }
    // Retried by the ordinary policy, whatever the outcome: after a lost response, a second POST.
    throw ApplicationFailure.newFailure(outcome.describe(), "NotAccepted");
  }

  @Override
  public List<JobOutput> awaitOutputs(String remoteJobId) {
    JobSnapshot snapshot = genace.get(remoteJobId);
    if (snapshot.status() == RemoteStatus.SUCCEEDED) {
      return snapshot.outputs();
    }
    if (snapshot.status().isTerminal()) {
      throw ApplicationFailure.newNonRetryableFailure(
          "render " + remoteJobId + " ended " + snapshot.status().wire(), "RenderEnded");
    }
    throw ApplicationFailure.newFailure("render " + remoteJobId + " not done yet", "NotDone");
  }

  @Override
  public int copyOutputs(String operationId, String remoteJobId, List<JobOutput> outputs) {
    for (int i = 0; i < outputs.size(); i++) {
      JobOutput output = outputs.get(i);
      String key = ArtifactKeys.of(operationId, remoteJobId, i, output.contentType());
      try (ArtifactContent content =
          new ArtifactContent(
              genace.openOutput(output),
              key,
              output.bytes(),
              output.sha256(),
              output.contentType(),
              bytesSoFar -> {})) {
        store.put(key, content);
      }
    }
    return outputs.size();
  }

  private static ObjectNode input(String inputJson) {
    try {
      return (ObjectNode) JSON.readTree(inputJson);
    } catch (JsonProcessingException | ClassCastException e) {
      throw ApplicationFailure.newNonRetryableFailure(
          "the input is not a JSON object", "InvalidRequest");
    }
  }
}
