package com.genace.ops.demo;

import com.genace.activities.genace.CreateOutcome;
import com.genace.activities.genace.CreateRequest;
import com.genace.activities.genace.GenaceClient;
import com.genace.activities.genace.JobOutput;
import com.genace.activities.genace.JobSnapshot;
import com.genace.activities.genace.RemoteJob;
import java.io.InputStream;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The demo worker's Genace client, remembering how each operation's last POST ended, so that the
 * demo operator tells a review's cause from the typed outcome (answered 503, response lost) rather
 * than from its text. Neither the ledger nor the workflow keeps more than the outcome's text.
 */
final class PostOutcomes implements GenaceClient {

  private final GenaceClient genace;
  private final Map<String, CreateOutcome> last = new ConcurrentHashMap<>();

  PostOutcomes(GenaceClient genace) {
    this.genace = genace;
  }

  /** How the last POST for {@code operationId} ended; empty if this worker sent none. */
  Optional<CreateOutcome> last(String operationId) {
    return Optional.ofNullable(last.get(operationId));
  }

  @Override
  public CreateOutcome create(CreateRequest request) {
    CreateOutcome outcome = genace.create(request);
    last.put(request.operationId(), outcome);
    return outcome;
  }

  @Override
  public JobSnapshot get(String remoteJobId) {
    return genace.get(remoteJobId);
  }

  @Override
  public Optional<RemoteJob> lookUp(String remoteJobId) {
    return genace.lookUp(remoteJobId);
  }

  @Override
  public Optional<List<RemoteJob>> search(String operationId) {
    return genace.search(operationId);
  }

  @Override
  public List<String> listModels() {
    return genace.listModels();
  }

  @Override
  public InputStream openOutput(JobOutput output) {
    return genace.openOutput(output);
  }
}
