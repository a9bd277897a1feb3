package com.genace.testkit.simulator;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.HexFormat;

/**
 * One render the simulator accepted. Immutable: the status is derived from the time since creation,
 * and everything random (outcome, number of outputs) is decided at creation.
 *
 * @param sequence creation order, to list an operation's jobs oldest first
 * @param createdNanos {@link System#nanoTime()} at creation, immune to wall-clock changes
 */
record SimulatedJob(
    String id,
    String operationId,
    String model,
    long sequence,
    Instant createdAt,
    long createdNanos,
    long durationMs,
    boolean fails,
    int outputCount) {

  /** Share of the duration spent queued before running. */
  private static final double QUEUED_SHARE = 0.2;

  /** The content type of this job's outputs: what its model renders. */
  String contentType() {
    return model.startsWith("video") ? "video/mp4" : "image/png";
  }

  /** The wire status at {@code nowNanos}. */
  String statusAt(long nowNanos) {
    double elapsedMs = (nowNanos - createdNanos) / 1_000_000.0;
    if (elapsedMs >= durationMs) {
      return fails ? "failed" : "succeeded";
    }
    return elapsedMs < durationMs * QUEUED_SHARE ? "queued" : "running";
  }

  /** The snapshot served by {@code GET /v1/generations/{id}}. */
  ObjectNode snapshot(long nowNanos, String baseUrl) {
    String status = statusAt(nowNanos);
    ObjectNode json = JsonNodeFactory.instance.objectNode();
    json.put("id", id);
    json.put("object", "generation");
    json.put("model", model);
    json.put("status", status);
    json.put("created_at", createdAt.toString());
    json.putObject("metadata").put("operation_id", operationId);
    var outputs = json.putArray("outputs");
    if (status.equals("succeeded")) {
      for (int index = 0; index < outputCount; index++) {
        byte[] bytes = artifact(index);
        outputs
            .addObject()
            .put("url", baseUrl + "/_sim/artifacts/" + id + "/" + index)
            .put("content_type", contentType())
            .put("bytes", bytes.length)
            .put("sha256", HexFormat.of().formatHex(sha256().digest(bytes)));
      }
    } else if (status.equals("failed")) {
      json.putObject("error")
          .put("code", "render_failed")
          .put("message", "the simulated render failed");
    }
    return json;
  }

  /**
   * The bytes of output {@code index}: 1 to 4 KiB, a pure function of job id and index, so that any
   * number of downloads agree with the snapshot's size and SHA-256.
   */
  byte[] artifact(int index) {
    byte[] seed = sha256().digest((id + "/" + index).getBytes(StandardCharsets.UTF_8));
    int size = 1024 + Math.floorMod(ByteBuffer.wrap(seed).getInt(), 3 * 1024 + 1);
    ByteBuffer out = ByteBuffer.allocate(size);
    MessageDigest digest = sha256();
    for (int block = 0; out.hasRemaining(); block++) {
      digest.update(seed);
      byte[] chunk = digest.digest(ByteBuffer.allocate(4).putInt(block).array());
      out.put(chunk, 0, Math.min(chunk.length, out.remaining()));
    }
    return out.array();
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK provides SHA-256", e);
    }
  }
}
