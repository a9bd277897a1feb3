package com.genace.activities.genace;

import com.genace.workflows.model.RemoteStatus;
import java.util.List;
import java.util.Objects;

/**
 * What Genace reported about one job at one moment.
 *
 * @param id the remote job id (equal to the id that was requested)
 * @param status current status
 * @param outputs artifacts; non-empty when {@code status} is {@link RemoteStatus#SUCCEEDED},
 *     usually empty otherwise
 * @param errorMessage Genace's error message for a failed or canceled job, otherwise {@code null}
 */
public record JobSnapshot(
    String id, RemoteStatus status, List<JobOutput> outputs, String errorMessage) {
  public JobSnapshot {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(status, "status");
    outputs = List.copyOf(outputs);
    if (id.isBlank()) {
      throw new IllegalArgumentException("job id must not be blank");
    }
  }
}
