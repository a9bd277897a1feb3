package com.genace.ops.operations;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.genace.activities.genace.PresignedUrls;
import com.genace.activities.ledger.OperationRow;
import com.genace.activities.ledger.TransitionRow;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/** The JSON forms of {@code ops list --json} and {@code ops show --json}: snake_case, as stored. */
final class OperationJson {

  static final ObjectMapper JSON = new ObjectMapper();

  private OperationJson() {}

  /** The fields {@code ops list} shows. */
  static ObjectNode summary(OperationRow row) {
    ObjectNode json = JSON.createObjectNode();
    json.put("operation_id", row.operationId());
    json.put("phase", row.phase().wire());
    json.put("next_action", row.nextAction().wire());
    json.put("remote_job_id", row.remoteJobId().orElse(null));
    json.put("revision", row.revision());
    json.put("model", row.model());
    json.put("account", row.account());
    json.put("created_at", row.createdAt().toString());
    json.put("updated_at", row.updatedAt().toString());
    return json;
  }

  /** Everything stored about the operation, and its history. */
  static ObjectNode full(OperationRow row, List<TransitionRow> history) {
    ObjectNode json = summary(row);
    ObjectNode lease = json.putObject("lease");
    lease.put("owner", row.leaseOwner().orElse(null));
    lease.put("until", text(row.leaseUntil()));
    json.set("request", parse(row.requestJson()));
    ObjectNode dispatch = json.putObject("dispatch");
    dispatch.put("attempts", row.dispatchAttempts());
    dispatch.put("submitting_since", text(row.submittingSince()));
    dispatch.put("outcome", row.dispatchOutcome().orElse(null));
    dispatch.put("detail", row.dispatchDetail().orElse(null));
    ObjectNode credits = json.putObject("credits");
    credits.put("estimated", row.credits().orElse(null));
    credits.put("committed_at", text(row.creditsCommittedAt()));
    ObjectNode remote = json.putObject("remote");
    remote.put("status", row.remoteStatus().map(s -> s.wire()).orElse(null));
    remote.put("observed_at", text(row.remoteObservedAt()));
    remote.set("snapshot", row.remoteSnapshotJson().map(OperationJson::parse).orElse(null));
    if (row.reviewReason().isPresent() || row.reviewResolution().isPresent()) {
      ObjectNode review = json.putObject("review");
      review.put("reason", row.reviewReason().orElse(null));
      review.put("opened_at", text(row.reviewOpenedAt()));
      review.put("resolution", row.reviewResolution().orElse(null));
      review.put("resolved_by", row.reviewResolvedBy().orElse(null));
      review.put("resolved_at", text(row.reviewResolvedAt()));
      review.put("note", row.reviewNote().orElse(null));
    } else {
      json.putNull("review");
    }
    json.set(
        "delivery_manifest", row.deliveryManifestJson().map(OperationJson::parse).orElse(null));
    json.put("failure_reason", row.failureReason().orElse(null));
    json.put("phase_since", row.inPhaseSince().toString());
    json.put("too_long_reported_at", text(row.tooLongReportedAt()));
    ObjectNode deliveryFailure = json.putObject("last_delivery_failure");
    deliveryFailure.put("reason", row.deliveryFailure().orElse(null));
    deliveryFailure.put("at", text(row.deliveryFailedAt()));
    if (row.cancelRequestedAt().isPresent()) {
      ObjectNode cancel = json.putObject("cancel_request");
      cancel.put("at", text(row.cancelRequestedAt()));
      cancel.put("by", row.cancelRequestedBy().orElse(null));
      cancel.put("reason", row.cancelReason().orElse(null));
      cancel.put("deliver_rendering", row.cancelDeliverRendering().orElse(null));
    } else {
      json.putNull("cancel_request");
    }
    ArrayNode transitions = json.putArray("history");
    for (TransitionRow transition : history) {
      ObjectNode entry = transitions.addObject();
      entry.put("at", transition.at().toString());
      entry.put("revision", transition.revision());
      entry.put("owner", transition.owner().orElse(null));
      entry.put("event", transition.event());
      entry.put("from_phase", transition.fromPhase().orElse(null));
      entry.put("to_phase", transition.toPhase().orElse(null));
      entry.put("accepted", transition.accepted());
      entry.set("details", parse(transition.detailsJson()));
    }
    return json;
  }

  /** A resolution as the JSON of the {@code resolveReconciliation} signal (the Web UI's form). */
  static String signalPayload(com.genace.client.review.ReviewResolution resolution) {
    ObjectNode payload = JSON.createObjectNode().put("decision", resolution.decision());
    if (resolution.remoteJobId() != null) {
      payload.put("remoteJobId", resolution.remoteJobId());
    }
    payload.put("reason", resolution.reason()).put("resolvedBy", resolution.resolver());
    if (!resolution.approvals().isEmpty()) {
      payload.set("approvals", JSON.valueToTree(resolution.approvals()));
    }
    return payload.toString();
  }

  /**
   * The stored JSON as shown: every pre-signed URL's query (its credentials) redacted ({@link
   * PresignedUrls}), wherever it lies (a snapshot's outputs, evidence, a transition's details).
   */
  static JsonNode parse(String json) {
    if (json == null) {
      return null;
    }
    try {
      return PresignedUrls.redacted(JSON.readTree(json));
    } catch (JsonProcessingException e) {
      // Stored by the ledger as jsonb, so this does not happen; show the text rather than fail.
      return JSON.getNodeFactory().textNode(PresignedUrls.redacted(json));
    }
  }

  /** Stored JSON as one line of text, as stored unless a pre-signed URL's query had to go. */
  static String shown(String json) {
    JsonNode redacted = parse(json);
    try {
      return redacted.equals(JSON.readTree(json)) ? json : redacted.toString();
    } catch (JsonProcessingException e) {
      return redacted.asText();
    }
  }

  static String pretty(JsonNode json) {
    try {
      return JSON.writerWithDefaultPrettyPrinter().writeValueAsString(json);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a JSON tree always serialises", e);
    }
  }

  private static String text(Optional<Instant> instant) {
    return instant.map(Instant::toString).orElse(null);
  }
}
