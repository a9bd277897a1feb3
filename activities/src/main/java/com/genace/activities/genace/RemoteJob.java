package com.genace.activities.genace;

import com.genace.workflows.model.RemoteStatus;
import java.util.Objects;

/**
 * A job as the evidence of a review needs it: who created it and when, not its outputs.
 *
 * @param createdAt Genace's {@code created_at}, as sent, or null
 * @param operationId the {@code metadata.operation_id} Genace echoed, or null when it did not
 */
public record RemoteJob(String id, RemoteStatus status, String createdAt, String operationId) {
  public RemoteJob {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(status, "status");
  }
}
