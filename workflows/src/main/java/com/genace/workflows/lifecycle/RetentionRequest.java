package com.genace.workflows.lifecycle;

/**
 * What a retention pass keeps, as the worker that last set up the schedule configured it.
 *
 * @param retentionDays ended operations are kept this many days after they ended ({@code
 *     GENACE_LEDGER_RETENTION_DAYS}); 0 keeps everything
 * @param allowanceWindowSeconds the spending allowance's window ({@code
 *     GENACE_ALLOWANCE_WINDOW_SECONDS}): a reservation made within it is never deleted
 */
public record RetentionRequest(int retentionDays, long allowanceWindowSeconds) {

  public RetentionRequest {
    if (retentionDays < 0) {
      throw new IllegalArgumentException("retention days must not be negative");
    }
    if (allowanceWindowSeconds < 0) {
      throw new IllegalArgumentException("the allowance window must not be negative");
    }
  }

  /** Whether this request keeps everything (nothing is deleted). */
  public boolean keepsEverything() {
    return retentionDays == 0;
  }
}
