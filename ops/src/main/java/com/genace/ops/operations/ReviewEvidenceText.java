package com.genace.ops.operations;

import com.fasterxml.jackson.databind.JsonNode;
import com.genace.activities.ledger.ReviewEvidenceRow;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;

/** A review's evidence as operators read it: the summary first, then one line per job found. */
final class ReviewEvidenceText {

  private ReviewEvidenceText() {}

  /** The summary and when it was gathered. */
  static String headline(ReviewEvidenceRow row) {
    return row.summary() + " (gathered " + row.gatheredAt().truncatedTo(ChronoUnit.SECONDS) + ")";
  }

  /** {@code gen_1 running created ... operation op-1 seen in search}, one per job. */
  static List<String> jobs(ReviewEvidenceRow row) {
    List<String> lines = new ArrayList<>();
    for (JsonNode job : OperationJson.parse(row.evidenceJson()).path("jobs")) {
      lines.add(
          job.path("id").asText()
              + "  "
              + job.path("status").asText()
              + "  created "
              + text(job, "createdAt")
              + "  operation "
              + text(job, "operationId")
              + "  seen in "
              + job.path("seenIn").asText());
    }
    return lines;
  }

  private static String text(JsonNode job, String field) {
    JsonNode value = job.get(field);
    return value == null || value.isNull() ? "?" : value.asText();
  }
}
