package com.genace.activities.ledger;

import java.time.Instant;

/**
 * A review's evidence as kept in the ledger.
 *
 * @param evidenceJson the evidence as the workflow's {@code describe} returns it
 * @param summary one line for operators
 */
public record ReviewEvidenceRow(
    String operationId, String evidenceJson, String summary, Instant gatheredAt) {}
