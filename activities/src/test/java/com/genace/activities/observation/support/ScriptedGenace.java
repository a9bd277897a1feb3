package com.genace.activities.observation.support;

import com.genace.activities.genace.CreateOutcome;
import com.genace.activities.genace.CreateRequest;
import com.genace.activities.genace.GenaceClient;
import com.genace.activities.genace.JobOutput;
import com.genace.activities.genace.JobSnapshot;
import com.genace.activities.genace.RemoteJob;
import java.io.InputStream;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/** Genace as a function of the requested job id; a poll calls nothing but {@code get}. */
public record ScriptedGenace(Function<String, JobSnapshot> answer) implements GenaceClient {
  @Override
  public JobSnapshot get(String remoteJobId) {
    return answer.apply(remoteJobId);
  }

  @Override
  public CreateOutcome create(CreateRequest request) {
    throw new UnsupportedOperationException("a poll never POSTs");
  }

  @Override
  public List<String> listModels() {
    throw new UnsupportedOperationException();
  }

  @Override
  public InputStream openOutput(JobOutput output) {
    throw new UnsupportedOperationException("a poll never downloads");
  }

  @Override
  public Optional<RemoteJob> lookUp(String remoteJobId) {
    throw new UnsupportedOperationException("a poll reads no job metadata");
  }

  @Override
  public Optional<List<RemoteJob>> search(String operationId) {
    throw new UnsupportedOperationException("a poll never searches");
  }
}
