package com.genace.ops.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.genace.activities.observation.PollingPolicy;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class FiguresTest {

  @Test
  void a_rate_is_events_per_second_of_measured_time() {
    assertThat(Figures.perSecond(300, Duration.ofMillis(1500))).isEqualTo(200.0);
    assertThat(Figures.perSecond(1, Duration.ofSeconds(3))).isEqualTo(0.33);
  }

  @Test
  void a_rate_over_no_time_is_unknown_not_infinite() {
    assertThat(Figures.perSecond(5, Duration.ZERO)).isNull();
  }

  @Test
  void the_ratio_is_ours_over_the_baseline_and_unknown_without_a_baseline() {
    assertThat(Figures.ratio(30.0, 120.0)).isEqualTo(0.25);
    assertThat(Figures.ratio(30.0, 0.0)).isNull();
    assertThat(Figures.ratio(null, 10.0)).isNull();
  }

  @Test
  void per_operation_figures_divide_by_the_operations() {
    assertThat(Figures.perOperation(17, 2)).isEqualTo(8.5);
    assertThat(Figures.perOperation(17, 0)).isNull();
  }

  @Test
  void percentiles_take_the_nearest_rank() {
    List<Double> samples = List.of(5.0, 1.0, 4.0, 2.0, 3.0, 100.0, 6.0, 7.0, 8.0, 9.0);
    assertThat(Figures.percentile(samples, 50)).isEqualTo(5.0);
    assertThat(Figures.percentile(samples, 99)).isEqualTo(100.0);
    assertThat(Figures.percentile(samples, 90)).isEqualTo(9.0);
    assertThat(Figures.percentile(List.of(), 99)).isNull();
    assertThatThrownBy(() -> Figures.percentile(samples, 101))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void bytes_are_reported_in_mebibytes() {
    assertThat(Figures.mebibytes(512L * 1024 * 1024)).isEqualTo(512.0);
    assertThat(Figures.mebibytes(null)).isNull();
  }

  @Test
  void each_observation_at_the_slowest_pace_polls_once_per_max_delay() {
    PollingPolicy policy =
        new PollingPolicy(Duration.ofSeconds(1), Duration.ofSeconds(15), 1.5, 0.2);
    assertThat(ScaleBench.expectedGetsPerSecond(3000, policy)).isEqualTo(200.0);
    assertThat(ScaleBench.expectedGetsPerSecond(0, policy)).isEqualTo(0.0);
  }

  @Test
  void the_slowest_pace_is_reached_after_the_backoff_stretched_by_the_jitter_and_one_more_poll() {
    // Delays 1, 2, 4 and 8 s before the 10 s maximum: 15 s, 18 s with 20 % jitter, then 10 s.
    PollingPolicy policy = new PollingPolicy(Duration.ofSeconds(1), Duration.ofSeconds(10), 2, 0.2);
    assertThat(ScaleBench.timeToSlowestPace(policy)).isEqualTo(Duration.ofSeconds(18 + 10));
  }
}
