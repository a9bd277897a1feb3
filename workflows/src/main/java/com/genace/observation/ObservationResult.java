package com.genace.observation;

/**
 * The end of observation: the terminal remote status ({@code succeeded}, {@code failed}, {@code
 * canceled}), or {@code review} when the remote job cannot be observed (unknown to Genace, missing
 * id) and the operation went to review.
 */
public record ObservationResult(String status, String remoteJobId, String detail) {

  public static final String REVIEW = "review";
}
