package com.genace.ops;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class StartedServicesTest {

  private final List<String> closed = new ArrayList<>();
  private final List<String> failures = new ArrayList<>();
  private final StartedServices services = new StartedServices(e -> failures.add(e.getMessage()));

  @Test
  void closes_the_last_started_first_and_each_only_once() {
    services.add(() -> closed.add("database"));
    services.add(() -> closed.add("temporal"));
    services.add(() -> closed.add("workers"));

    services.close();
    services.close();

    assertThat(closed).containsExactly("workers", "temporal", "database");
    assertThat(failures).isEmpty();
  }

  @Test
  void a_service_that_fails_to_close_is_told_and_the_rest_are_still_closed() {
    services.add(() -> closed.add("database"));
    services.add(
        () -> {
          throw new IllegalStateException("temporal would not stop");
        });
    services.add(() -> closed.add("workers"));

    services.close();

    assertThat(closed).containsExactly("workers", "database");
    assertThat(failures).containsExactly("temporal would not stop");
  }

  @Test
  void an_interrupted_close_restores_the_interrupt() {
    services.add(
        () -> {
          throw new InterruptedException("interrupted while stopping");
        });

    services.close();

    assertThat(Thread.interrupted()).isTrue();
    assertThat(failures).containsExactly("interrupted while stopping");
  }
}
