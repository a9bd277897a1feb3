package com.genace.workflows.registration;

import com.genace.client.GenerationRequest;
import io.temporal.activity.ActivityInterface;

/**
 * The scheduled registration of an operation in the ledger, for when the first dispatch attempt
 * (which registers too) did not report back. Idempotent and retried freely. Its activity type is
 * {@code Register}, the name the workflow's histories hold.
 */
@ActivityInterface
public interface RegistrationActivities {

  /** Records the operation in {@code pending}; a second call for the same id changes nothing. */
  void register(GenerationRequest request);
}
