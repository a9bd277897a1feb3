package com.genace.client;

import java.util.concurrent.TimeoutException;

/**
 * The operation did not end within the wait. It goes on; {@link #view()} says where it stands (for
 * example in review, waiting for an operator), when the workflow could be asked.
 */
public final class OperationTimeoutException extends TimeoutException {

  private static final long serialVersionUID = 1L;

  private final transient OperationView view;

  OperationTimeoutException(String operationId, OperationView view) {
    super(
        "operation "
            + operationId
            + " did not end in time"
            + (view == null ? "" : "; it is " + where(view)));
    this.view = view;
  }

  /** The operation's state when the wait ended, or null when the workflow could not be queried. */
  public OperationView view() {
    return view;
  }

  private static String where(OperationView view) {
    if (view.review() != null && view.phase() == com.genace.client.model.Phase.IN_REVIEW) {
      return "in review ("
          + view.review().reason().wire()
          + ") and waits for an operator: ./genace ops resolve "
          + view.operationId();
    }
    return view.phase().wire();
  }
}
