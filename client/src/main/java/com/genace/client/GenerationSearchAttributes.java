package com.genace.client;

import io.temporal.common.SearchAttributeKey;

/**
 * Typed search attributes for the Temporal Web UI, e.g. {@code GenaceNeedsReview = true}. They must
 * be registered on the namespace (the dev stack and CI do it).
 */
public final class GenerationSearchAttributes {

  public static final SearchAttributeKey<String> PHASE =
      SearchAttributeKey.forKeyword("GenacePhase");
  public static final SearchAttributeKey<String> REMOTE_JOB_ID =
      SearchAttributeKey.forKeyword("GenaceRemoteJobId");
  public static final SearchAttributeKey<Boolean> NEEDS_REVIEW =
      SearchAttributeKey.forBoolean("GenaceNeedsReview");

  /**
   * The estimated credits committed with Genace's acceptance of the POST (Int), so that a list of
   * operations in the Web UI can be summed; set with the {@code observing} phase, from {@link
   * com.genace.client.OperationView#credits}'s value. Absent on runs started before it.
   */
  public static final SearchAttributeKey<Long> CREDITS =
      SearchAttributeKey.forLong("GenaceCredits");

  private GenerationSearchAttributes() {}
}
