package com.genace.workflows.observation;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.genace.client.model.ReviewReason;
import com.genace.workflows.model.RemoteStatus;
import java.util.Locale;

/**
 * The end of observation: either the remote job's terminal {@code status}, or the {@code review}
 * the operation went to because the job cannot be observed (unknown to Genace, missing id). Exactly
 * one of the two is set.
 */
public record ObservationResult(
    RemoteStatus status, ReviewReason review, String remoteJobId, String detail) {

  public ObservationResult {
    if ((status == null) == (review == null)) {
      throw new IllegalArgumentException("an observation ends either terminal or in review");
    }
    if (status != null && !status.isTerminal()) {
      throw new IllegalArgumentException("observation ends only on a terminal status");
    }
  }

  public static ObservationResult terminal(RemoteStatus status, String remoteJobId, String detail) {
    return new ObservationResult(status, null, remoteJobId, detail);
  }

  public static ObservationResult inReview(ReviewReason reason, String remoteJobId, String detail) {
    return new ObservationResult(null, reason, remoteJobId, detail);
  }

  public boolean endedInReview() {
    return review != null;
  }

  /** Reads this payload; the status by its name in any case ({@code SUCCEEDED}, {@code failed}). */
  @JsonCreator
  static ObservationResult fromJson(
      @JsonProperty("status") String status,
      @JsonProperty("review") ReviewReason review,
      @JsonProperty("remoteJobId") String remoteJobId,
      @JsonProperty("detail") String detail) {
    if (review != null) {
      return inReview(review, remoteJobId, detail);
    }
    return terminal(
        RemoteStatus.parse(String.valueOf(status).toLowerCase(Locale.ROOT)), remoteJobId, detail);
  }
}
