package com.genace.ops.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.genace.activities.delivery.LocalDirectoryArtifactStore;
import com.genace.activities.genace.GenaceClientConfig;
import com.genace.activities.genace.HttpGenaceClient;
import com.genace.activities.observation.PollingPolicy;
import com.genace.testkit.simulator.Faults;
import com.genace.testkit.simulator.GenaceSimulator;
import com.genace.testkit.simulator.SimulatorStats;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.common.RetryOptions;
import io.temporal.testing.TestEnvironmentOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The naive baseline on the Temporal test server (in real time), against the simulator over HTTP
 * and a local artifact store: it does the work ours does, and none of the safety.
 */
class NaiveWorkflowTest {

  private static final String KEY = "naive-test-key";

  @TempDir Path artifacts;

  private GenaceSimulator simulator;
  private TestWorkflowEnvironment temporal;

  @BeforeEach
  void start() {
    simulator = GenaceSimulator.builder().apiKey(KEY).start();
    temporal =
        TestWorkflowEnvironment.newInstance(
            TestEnvironmentOptions.newBuilder().setUseTimeskipping(false).build());
    Worker worker = temporal.newWorker(NaiveWorkflow.TASK_QUEUE);
    worker.registerWorkflowImplementationTypes(NaiveWorkflow.Impl.class);
    worker.registerActivitiesImplementations(
        new NaiveSteps(
            new HttpGenaceClient(GenaceClientConfig.of(simulator.baseUrl(), KEY)),
            new LocalDirectoryArtifactStore(artifacts)));
    temporal.start();
  }

  @AfterEach
  void stop() {
    temporal.close();
    simulator.close();
  }

  @Test
  void it_posts_polls_until_the_render_is_done_and_copies_the_output() throws Exception {
    simulator.setFaults(Faults.DEFAULT.withJobDurationMs(1500));

    int stored = run("op-happy");

    SimulatorStats stats = simulator.stats();
    assertThat(stats.postsFor("op-happy")).isEqualTo(1);
    assertThat(stats.getsTotal()).isPositive();
    try (Stream<Path> files = Files.walk(artifacts)) {
      assertThat(files.filter(Files::isRegularFile).map(p -> p.getFileName().toString()))
          .hasSize(stored)
          .contains("0.png");
    }
    assertThat(stored).isPositive();
  }

  @Test
  void a_lost_post_response_is_posted_again_and_pays_for_a_second_render() throws Exception {
    simulator.setFaults(Faults.DEFAULT.withJobDurationMs(0).withLosePostResponseNext(1));

    run("op-lost");

    assertThat(simulator.stats().postsFor("op-lost")).isEqualTo(2);
    assertThat(simulator.jobsForOperation("op-lost")).hasSize(2);
  }

  @Test
  void its_polls_back_off_as_ours_do_up_to_the_slowest_pace() {
    RetryOptions pace = NaiveWorkflow.Impl.pollPace(Duration.ofSeconds(15));

    assertThat(pace.getInitialInterval()).isEqualTo(PollingPolicy.DEFAULT.initialDelay());
    assertThat(pace.getBackoffCoefficient()).isEqualTo(PollingPolicy.DEFAULT.multiplier());
    assertThat(pace.getMaximumInterval()).isEqualTo(Duration.ofSeconds(15));
    assertThat(pace.getMaximumAttempts()).isZero(); // until the render ends
  }

  private int run(String operationId) {
    NaiveWorkflow workflow =
        temporal
            .getWorkflowClient()
            .newWorkflowStub(
                NaiveWorkflow.class,
                WorkflowOptions.newBuilder()
                    .setWorkflowId("naive/" + operationId)
                    .setTaskQueue(NaiveWorkflow.TASK_QUEUE)
                    .setWorkflowExecutionTimeout(Duration.ofMinutes(2))
                    .build());
    WorkflowClient.start(
        workflow::run,
        new NaiveWorkflow.Request(operationId, "image-v1", "{\"prompt\":\"a fox\"}", 15));
    return temporal
        .getWorkflowClient()
        .newUntypedWorkflowStub("naive/" + operationId)
        .getResult(Integer.class);
  }
}
