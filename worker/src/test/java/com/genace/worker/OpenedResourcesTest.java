package com.genace.worker;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class OpenedResourcesTest {

  @Test
  void closes_the_last_opened_first_each_whatever_the_others_did_and_only_once() {
    List<String> closed = new ArrayList<>();
    OpenedResources opened = new OpenedResources();
    opened.add("pool", "pool", closed::add);
    opened.add(
        "stubs",
        "stubs",
        name -> {
          closed.add(name);
          throw new IllegalStateException("stubs stuck");
        });
    opened.add("server", "server", closed::add);

    List<Exception> failures = opened.closeAll();

    assertThat(closed).containsExactly("server", "stubs", "pool");
    assertThat(failures)
        .singleElement()
        .satisfies(e -> assertThat(e).hasMessage("closing stubs failed: stubs stuck"));
    assertThat(opened.closeAll()).isEmpty();
    assertThat(closed).hasSize(3);
  }

  @Test
  void after_a_failed_step_the_failure_carries_what_could_not_be_closed_as_suppressed() {
    OpenedResources opened = new OpenedResources();
    opened.add(
        "pool",
        "pool",
        name -> {
          throw new java.io.IOException("pool busy");
        });
    RuntimeException failure = new IllegalStateException("port taken");

    opened.closeAfter(failure);

    assertThat(failure).hasMessage("port taken");
    assertThat(failure.getSuppressed())
        .singleElement()
        .satisfies(e -> assertThat(e).hasMessage("closing pool failed: pool busy"));
  }
}
