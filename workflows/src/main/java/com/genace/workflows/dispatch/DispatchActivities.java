package com.genace.workflows.dispatch;

import com.genace.client.GenerationRequest;
import io.temporal.activity.ActivityInterface;

/**
 * The paid {@code POST}. Runs on its own task queue with {@code maximumAttempts = 1}: it is never
 * retried by Temporal, and its HTTP client never retries a {@code POST} either.
 *
 * <p>Contract: claims the dispatch lease, commits {@code submitting} before sending, sends once,
 * and records the outcome under the same lease. It throws an {@link
 * io.temporal.failure.ApplicationFailure} of type {@link #NOTHING_SENT} only when it failed before
 * anything could have been sent; any other failure or timeout means the outcome is unknown.
 */
@ActivityInterface
public interface DispatchActivities {

  /** Failure type: the activity failed before a POST could leave. */
  String NOTHING_SENT = "GenaceDispatchNothingSent";

  /**
   * Failure type of {@link #registerAndDispatch}: the operation could not be registered, so nothing
   * was claimed or sent.
   */
  String NOT_REGISTERED = "GenaceDispatchNotRegistered";

  DispatchResult dispatch(String operationId);

  /**
   * The first dispatch of an operation: registers it in the ledger ({@code pending}; already
   * registered is fine), then {@link #dispatch}es it, in one activity: the usual first attempt
   * costs one activity task and its events, not two.
   */
  DispatchResult registerAndDispatch(GenerationRequest request);
}
