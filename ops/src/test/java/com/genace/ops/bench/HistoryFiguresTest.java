package com.genace.ops.bench;

import static com.genace.ops.support.SavedHistories.saved;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class HistoryFiguresTest {

  @Test
  void events_and_actions_are_averaged_over_the_sampled_workflows() throws Exception {
    HistoryFigures figures =
        HistoryFigures.of(List.of(saved("delivered.json"), saved("review-abandon.json")));

    // 25 and 37 events; 6 and 9 actions, of which the review's timer and signal.
    assertThat(figures.eventsPerWorkflow()).isEqualTo(31.0);
    assertThat(figures.actionsPerWorkflow()).isEqualTo(7.5);
    assertThat(figures.actionsByType())
        .contains(
            entry("ACTIVITY_TASK_SCHEDULED RegisterAndDispatch", 1.0),
            entry("UPSERT_WORKFLOW_SEARCH_ATTRIBUTES", 2.0),
            entry("TIMER_STARTED", 0.5),
            entry("WORKFLOW_EXECUTION_SIGNALED", 0.5));
    // Four workflow tasks for the delivery, six for the review; no version marker.
    assertThat(figures.eventsByType())
        .contains(entry("WORKFLOW_TASK_COMPLETED", 5.0))
        .doesNotContainKey("MARKER_RECORDED");
  }

  @Test
  void nothing_sampled_is_unknown_not_zero() {
    HistoryFigures figures = HistoryFigures.of(List.of());

    assertThat(figures.actionsPerWorkflow()).isNull();
    assertThat(figures.eventsPerWorkflow()).isNull();
  }

  @Test
  void the_sample_is_spread_over_the_whole_batch() {
    List<String> ids = IntStream.range(0, 100).mapToObj(i -> "op-" + i).toList();

    assertThat(HistoryFigures.spread(ids, 4)).containsExactly("op-0", "op-25", "op-50", "op-75");
    assertThat(HistoryFigures.spread(ids.subList(0, 3), 20))
        .containsExactly("op-0", "op-1", "op-2");
  }
}
