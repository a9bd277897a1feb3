package com.genace.worker.health;

import static org.assertj.core.api.Assertions.assertThat;

import com.genace.activities.delivery.ArtifactStoreException;
import com.genace.workflows.model.FailureTypes;
import io.temporal.failure.ApplicationFailure;
import java.io.UncheckedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import org.junit.jupiter.api.Test;

class ActivityCountingTest {

  @Test
  void the_exception_is_named_by_its_root_cause_not_its_wrappers() {
    FileSystemException denied = new FileSystemException("/artifacts/x.png");
    Throwable wrapped =
        new UncheckedIOException(
            "cannot store", new java.io.IOException(new ArtifactStoreException("x", denied)));

    assertThat(ActivityCounting.rootCause(wrapped)).isEqualTo("FileSystemException");
    assertThat(ActivityCounting.rootCause(new AccessDeniedException("/a")))
        .isEqualTo("AccessDeniedException");
    assertThat(ActivityCounting.rootCause(new IllegalStateException("bug")))
        .isEqualTo("IllegalStateException");
  }

  @Test
  void an_application_failure_without_a_cause_is_named_by_its_type() {
    assertThat(
            ActivityCounting.rootCause(
                ApplicationFailure.newFailure("lost", FailureTypes.LEASE_LOST)))
        .isEqualTo(FailureTypes.LEASE_LOST);
  }
}
