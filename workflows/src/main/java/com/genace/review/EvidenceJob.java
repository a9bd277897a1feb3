package com.genace.review;

/**
 * A Genace job found while gathering a review's evidence.
 *
 * @param id the remote job id
 * @param status its status when read ({@code queued}, {@code running}, ...)
 * @param createdAt its creation time as Genace reported it, or null
 * @param operationId the {@code metadata.operation_id} it carries, or null when Genace did not echo
 *     metadata
 * @param seenIn {@code exchange} (the id came up in the failed exchange) or {@code search}
 */
public record EvidenceJob(
    String id, String status, String createdAt, String operationId, String seenIn) {

  public static final String EXCHANGE = "exchange";
  public static final String SEARCH = "search";

  /** One line: {@code gen_1 (running, created 2024-06-01T10:00:00Z)}. */
  public String describe() {
    return id + " (" + status + (createdAt == null ? "" : ", created " + createdAt) + ")";
  }
}
