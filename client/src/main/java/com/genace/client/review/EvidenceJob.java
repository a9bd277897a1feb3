package com.genace.client.review;

/**
 * A Genace job found while gathering a review's evidence.
 *
 * @param id the remote job id
 * @param status its status when read ({@code queued}, {@code running}, ...)
 * @param createdAt its creation time as Genace reported it, or null
 * @param operationId the {@code metadata.operation_id} it carries, or null when Genace did not echo
 *     metadata
 * @param seenIn {@code exchange} (the id came up in an exchange of this operation), {@code search},
 *     or {@code ledger} (a denied write in the ledger's history carries it)
 */
public record EvidenceJob(
    String id, String status, String createdAt, String operationId, String seenIn) {

  public static final String EXCHANGE = "exchange";
  public static final String SEARCH = "search";
  public static final String LEDGER = "ledger";

  /** What a job id seen elsewhere is known as when Genace cannot say more of it. */
  public static final String UNREAD = "unread";

  /**
   * This job, as one of {@code ownOperationId}'s when Genace did not echo metadata: for an id that
   * operation's own exchange or write carried.
   */
  public EvidenceJob carrying(String ownOperationId) {
    return operationId != null
        ? this
        : new EvidenceJob(id, status, createdAt, ownOperationId, seenIn);
  }

  /** One line: {@code gen_1 (running, created 2024-06-01T10:00:00Z)}. */
  public String describe() {
    return id
        + " ("
        + status
        + (createdAt == null ? "" : ", created " + createdAt)
        + (LEDGER.equals(seenIn) ? ", from a denied write in the ledger" : "")
        + ")";
  }
}
