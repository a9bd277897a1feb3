package com.genace.activities.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class RetentionWindowTest {

  @Test
  void the_configured_days_apply_when_temporal_keeps_closed_workflows_shorter() {
    assertThat(RetentionWindow.effective(90, Optional.of(Duration.ofDays(30))))
        .isEqualTo(Duration.ofDays(90));
    assertThat(RetentionWindow.effective(90, Optional.empty())).isEqualTo(Duration.ofDays(90));
  }

  @Test
  void a_row_outlives_its_closed_workflow_by_a_day_when_temporal_keeps_it_longer() {
    assertThat(RetentionWindow.effective(7, Optional.of(Duration.ofDays(30))))
        .isEqualTo(Duration.ofDays(31));
    assertThat(RetentionWindow.effective(30, Optional.of(Duration.ofDays(30))))
        .isEqualTo(Duration.ofDays(31));
  }

  @Test
  void zero_days_keep_everything_whatever_temporal_keeps() {
    assertThat(RetentionWindow.effective(0, Optional.of(Duration.ofDays(30))))
        .isEqualTo(Duration.ZERO);
  }
}
