package com.genace.client;

import java.util.Optional;

/**
 * An application's or operator's request to cancel an operation, sent with the workflow's {@code
 * cancel} update. A Temporal cancel request (Web UI, {@code temporal workflow cancel}, another SDK)
 * is handled the same way, as {@link #fromTemporal}.
 *
 * @param reason why, for the record (required)
 * @param requestedBy who asks (required)
 * @param deliverRendering whether an operation whose render Genace already accepted is still
 *     observed and delivered; null for {@link #DELIVER_RENDERING_BY_DEFAULT}
 */
public record CancelRequest(String reason, String requestedBy, Boolean deliverRendering) {

  /**
   * A cancelled operation whose render is already running is not delivered by default: the
   * application asked to stop, and copying into its storage what it no longer wants leaves it
   * something to clean up. The credits are spent either way (Genace has no cancel route), so the
   * remote job id stays recorded in the ledger and the render can still be fetched by hand.
   */
  public static final boolean DELIVER_RENDERING_BY_DEFAULT = false;

  /** The longest reason or requester kept; longer ones are refused. */
  public static final int MAX_TEXT_LENGTH = 1000;

  public CancelRequest(String reason, String requestedBy) {
    this(reason, requestedBy, null);
  }

  /** A cancel request that came through Temporal itself, which carries no requester of ours. */
  public static CancelRequest fromTemporal(String temporalReason) {
    String reason =
        temporalReason == null || temporalReason.isBlank()
            ? "workflow cancel requested through Temporal (Web UI, CLI or SDK)"
            : temporalReason;
    return new CancelRequest(reason, "temporal", null);
  }

  public boolean deliversRendering() {
    return deliverRendering == null ? DELIVER_RENDERING_BY_DEFAULT : deliverRendering;
  }

  /** What is wrong with the request on its own, in words a caller can act on. */
  public Optional<String> problem() {
    if (reason == null || reason.isBlank()) {
      return Optional.of("a reason is required");
    }
    if (requestedBy == null || requestedBy.isBlank()) {
      return Optional.of("who cancels must be given");
    }
    if (reason.length() > MAX_TEXT_LENGTH || requestedBy.length() > MAX_TEXT_LENGTH) {
      return Optional.of("reason and requester are limited to " + MAX_TEXT_LENGTH + " characters");
    }
    return Optional.empty();
  }

  /** How the ledger and the Web UI say it: {@code cancelled by alice: customer cancelled}. */
  public String describe() {
    return "cancelled by " + requestedBy + ": " + reason;
  }
}
