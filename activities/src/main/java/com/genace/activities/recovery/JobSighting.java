package com.genace.activities.recovery;

/**
 * A remote job id one of Temporal's records of an operation holds: evidence that Genace accepted a
 * POST of it.
 *
 * @param jobId the remote job id
 * @param credits the credits committed with its acceptance, as the run knew them, or null
 * @param runId the run whose history holds it
 * @param source where in that history: {@value #DISPATCH_ACCEPTED}, {@value #DISPATCH_UNRECORDED},
 *     {@value #SEARCH_ATTRIBUTE}, {@value #CARRIED}, {@value #SEEN} or {@value #RESULT}
 */
public record JobSighting(String jobId, Long credits, String runId, String source) {

  /** A dispatch activity completed with Genace's acceptance. */
  public static final String DISPATCH_ACCEPTED = "dispatch accepted";

  /** A dispatch activity reported Genace's answer, which the ledger did not record. */
  public static final String DISPATCH_UNRECORDED = "dispatch answered, not recorded";

  /** The run showed the job as its {@code GenaceRemoteJobId}. */
  public static final String SEARCH_ATTRIBUTE = "search attribute";

  /** A run continued as new carrying the job. */
  public static final String CARRIED = "carried across continue-as-new";

  /** A review of the run found the job on Genace, carrying the operation's id. */
  public static final String SEEN = "seen in a review";

  /** The run's result names the job. */
  public static final String RESULT = "workflow result";

  /**
   * Whether the sighting shows the operation went on with the job (it was accepted and recorded,
   * carried, shown or named in a result), not only that a review found it on Genace: a review may
   * have found two, and which one is the operation's is an operator's to say.
   */
  public boolean accepted() {
    return !SEEN.equals(source);
  }

  /** One line: {@code gen_1 (dispatch accepted in run 4f2…)}. */
  public String describe() {
    return jobId + " (" + source + " in run " + runId + ")";
  }
}
