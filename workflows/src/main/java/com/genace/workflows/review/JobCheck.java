package com.genace.workflows.review;

/**
 * Whether a job an operator named may resolve a review, as Genace answered.
 *
 * @param refusal why not, or null when it may
 */
public record JobCheck(String refusal) {

  public static JobCheck accepted() {
    return new JobCheck(null);
  }
}
