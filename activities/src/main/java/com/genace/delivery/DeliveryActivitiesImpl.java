package com.genace.delivery;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.genace.client.GenaceClient;
import com.genace.client.JobSnapshot;
import com.genace.leasing.HeldLease;
import com.genace.ledger.ClaimResult;
import com.genace.ledger.Lease;
import com.genace.ledger.OperationRow;
import com.genace.ledger.OperationsLedger;
import com.genace.ledger.WriteResult;
import com.genace.model.FailureTypes;
import com.genace.model.NextAction;
import com.genace.model.Phase;
import io.temporal.activity.Activity;
import io.temporal.failure.ApplicationFailure;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delivers a succeeded job's outputs:
 *
 * <ol>
 *   <li>claim the deliver lease; read the stored snapshot's outputs;
 *   <li>for each output, skip it if the store already holds its key with the same size and SHA-256,
 *       else download (verified) and store it atomically;
 *   <li>record the manifest under the lease.
 * </ol>
 */
public final class DeliveryActivitiesImpl implements DeliveryActivities {

  private static final Logger log = LoggerFactory.getLogger(DeliveryActivitiesImpl.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final OperationsLedger ledger;
  private final GenaceClient genace;
  private final ArtifactStore store;
  private final String owner;

  public DeliveryActivitiesImpl(
      OperationsLedger ledger, GenaceClient genace, ArtifactStore store, String owner) {
    this.ledger = ledger;
    this.genace = genace;
    this.store = store;
    this.owner = owner;
  }

  @Override
  public DeliveryResult deliver(String operationId) {
    ClaimResult claim = ledger.claim(operationId, owner, NextAction.DELIVER);
    if (claim instanceof ClaimResult.NotAcquired notAcquired) {
      return fromCurrentState(operationId, notAcquired.current());
    }
    try (HeldLease held = new HeldLease(ledger, ((ClaimResult.Acquired) claim).lease())) {
      return deliver(operationId, held);
    }
  }

  /** Under the deliver lease, which a failure hands back so that the retry claims at once. */
  private DeliveryResult deliver(String operationId, HeldLease held) {
    Lease lease = held.lease();
    OperationRow row = ledger.get(operationId);
    String remoteJobId = row.remoteJobId().orElseThrow();
    JobSnapshot snapshot = readSnapshot(row);
    List<DeliveredArtifact> artifacts = new ArrayList<>();
    int copied = 0;
    for (int i = 0; i < snapshot.outputs().size(); i++) {
      var output = snapshot.outputs().get(i);
      String key = ArtifactKeys.of(operationId, remoteJobId, i, output.contentType());
      if (!store.holds(key, output.bytes(), output.sha256())) {
        Path staged = store.stagingFile(key);
        try {
          genace.download(output, staged);
          store.put(key, staged);
        } finally {
          deleteQuietly(staged);
        }
        copied++;
      }
      artifacts.add(
          new DeliveredArtifact(key, output.bytes(), output.sha256(), output.contentType()));
      Activity.getExecutionContext().heartbeat(i + 1);
    }
    WriteResult written = ledger.recordDelivered(lease, manifest(artifacts));
    if (written != WriteResult.UNCHANGED) {
      held.ended(); // applied: the delivered transition released it; denied: no longer ours
    }
    if (written != WriteResult.APPLIED) {
      throw ApplicationFailure.newFailure(
          "deliver lease of " + operationId + " was lost before the manifest was recorded",
          FailureTypes.LEASE_LOST);
    }
    log.info(
        "operation {}: {} artifact(s) delivered, {} copied now",
        operationId,
        artifacts.size(),
        copied);
    return new DeliveryResult(artifacts, copied);
  }

  private String manifest(List<DeliveredArtifact> artifacts) {
    ObjectNode manifest = JSON.createObjectNode();
    var list = manifest.putArray("artifacts");
    for (DeliveredArtifact artifact : artifacts) {
      ObjectNode node = JSON.valueToTree(artifact);
      node.put("location", store.locate(artifact.key()));
      list.add(node);
    }
    return manifest.toString();
  }

  private static JobSnapshot readSnapshot(OperationRow row) {
    try {
      return JSON.readValue(row.remoteSnapshotJson().orElseThrow(), JobSnapshot.class);
    } catch (IOException e) {
      throw ApplicationFailure.newNonRetryableFailureWithCause(
          "stored snapshot of " + row.operationId() + " is unreadable", "CorruptSnapshot", e);
    }
  }

  private static DeliveryResult fromCurrentState(String operationId, OperationRow row) {
    if (row.phase() == Phase.DELIVERED) {
      try {
        var node = JSON.readTree(row.deliveryManifestJson().orElse("{\"artifacts\":[]}"));
        List<DeliveredArtifact> artifacts = new ArrayList<>();
        for (var item : node.path("artifacts")) {
          artifacts.add(
              new DeliveredArtifact(
                  item.path("key").asText(),
                  item.path("bytes").asLong(),
                  item.path("sha256").asText(),
                  item.path("contentType").asText()));
        }
        return new DeliveryResult(artifacts, 0);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    throw ApplicationFailure.newFailure(
        "operation "
            + operationId
            + " cannot be delivered now (phase "
            + row.phase().wire()
            + ", lease held by "
            + row.leaseOwner().orElse("nobody")
            + ")",
        "DeliverLeaseHeld");
  }

  private static void deleteQuietly(Path path) {
    try {
      Files.deleteIfExists(path);
    } catch (IOException e) {
      log.debug("could not delete staging file {}", path, e);
    }
  }
}
