package com.genace.activities.controls;

import static org.assertj.core.api.Assertions.assertThat;

import com.genace.activities.testing.DatabaseExtension;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(DatabaseExtension.class)
class WorkerControlsTest {

  @Test
  void a_pause_is_durable_and_seen_by_every_reader_until_resumed(DataSource db) {
    WorkerControls operator = new WorkerControls(db);
    WorkerControls worker = new WorkerControls(db);
    assertThat(worker.dispatchPause()).isEmpty();

    operator.pauseDispatch("alice", "provider incident");

    assertThat(worker.dispatchPause())
        .hasValueSatisfying(
            pause -> {
              assertThat(pause.pausedBy()).isEqualTo("alice");
              assertThat(pause.reason()).isEqualTo("provider incident");
            });
    operator.resumeDispatch("bob", "resolved");
    assertThat(worker.dispatchPause()).isEmpty();
  }
}
