package com.genace.ops.upgrade;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.genace.client.OperationResult;
import com.genace.client.OperationView;
import com.genace.client.model.Phase;
import com.genace.ops.faults.support.DrillFigures;
import com.genace.ops.faults.support.DrillStack;
import com.genace.ops.faults.support.DrillWorker;
import com.genace.ops.faults.support.Drills;
import com.genace.ops.faults.support.Release;
import com.genace.ops.faults.support.Seeds;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The upgrade tier (docs/upgrading.md): the previous release's {@code db migrate} and worker bring
 * operations into every state a rollout meets; the worker is drained as a rollout drains it; this
 * build's {@code db migrate} runs against that ledger and this build's worker takes over, an
 * operator resumes dispatch and resolves the reviews, and every operation must end as it should: no
 * duplicate POST, none lost, no workflow task failed (a run that cannot replay on the new code).
 *
 * <p>The previous release's build comes from {@value Release#PREVIOUS_VARIABLE} ({@code
 * scripts/previous-release.sh}); {@code .ci/run} runs this test with it.
 */
@Tag("upgrade")
class UpgradeTest {

  static final Path FIGURES_FILE = Path.of("target", "upgrade", "figures.txt");

  static final Duration READY = Duration.ofSeconds(90);
  static final Duration STATE = Duration.ofSeconds(90);

  /**
   * The history length at which the Temporal server suggests continuing as new. The workflow's own
   * budget is 2,000 events, which a wait for credits (a turn every 15 s or more) reaches only after
   * hours; the server's suggestion, which the workflow honours at the same waits, brings the
   * continue-as-new of a waiting run within the test's minutes.
   */
  static final int SUGGEST_CONTINUE_AS_NEW_AT = 30;

  /** A render long enough to be observed by the previous release and finished under this one. */
  static final int LONG_RENDER_MS = 45_000;

  static final int RENDER_MS = 1500;

  /** The allowance of the previous release's fleet: the costly model can never fit in it. */
  static final String COSTLY_MODEL = "video-v1";

  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void every_operation_a_rollout_meets_ends_as_it_should_under_the_new_release() throws Exception {
    Release previous = Release.previous();
    Release current = Release.CURRENT;
    try (DrillStack stack =
        DrillStack.start(
            "upgrade",
            Seeds.next(),
            previous,
            Map.of(
                "limit.historyCount.suggestContinueAsNew",
                Integer.toString(SUGGEST_CONTINUE_AS_NEW_AT)))) {
      Map<String, String> oldFleet = stack.workerEnvironment();
      oldFleet.put("GENACE_MODEL_COSTS", COSTLY_MODEL + "=1000");
      oldFleet.put("GENACE_ALLOWANCE_CREDITS", "100");
      DrillWorker oldWorker =
          stack.startWorker("worker-" + previous.version(), oldFleet, previous).awaitReady(READY);

      // What each operation is expected to end as, in the order they are brought into their state.
      Map<String, Phase> expected = new LinkedHashMap<>();

      String delivered = stack.startOperation("delivered", "image-v1");
      expected.put(delivered, Phase.DELIVERED);
      Drills.require(STATE, "delivered", () -> stack.inPhase(delivered, "delivered"));

      // First, so that the long render below is not spent waiting for this one.
      String credits = stack.startOperation("waiting-for-credits", COSTLY_MODEL);
      expected.put(credits, Phase.DELIVERED);
      WorkflowHistories histories = new WorkflowHistories(stack.connection);
      Drills.require(
          Duration.ofSeconds(120),
          "waiting for credits past a continue-as-new",
          () -> stack.inPhase(credits, "pending") && histories.runs(credits) >= 2);

      stack.simulatorControl.faults("{\"job_duration_ms\": " + LONG_RENDER_MS + "}");
      String observing = stack.startOperation("observing", "image-v1");
      expected.put(observing, Phase.DELIVERED);
      Drills.require(STATE, "observing", () -> stack.inPhase(observing, "observing"));
      stack.simulatorControl.faults("{\"job_duration_ms\": " + RENDER_MS + "}");

      stack.artifactStoreWritable(false);
      String delivering = stack.startOperation("delivering", "image-v1");
      expected.put(delivering, Phase.DELIVERED);
      Drills.require(STATE, "delivering", () -> stack.inPhase(delivering, "delivering"));

      // Lost POST responses, and no search on Genace's side: only an operator can decide.
      stack.simulatorControl.faults("{\"lose_post_response_next\": 2, \"search_enabled\": false}");
      String review = stack.startOperation("in-review", "image-v1");
      String cancelled = stack.startOperation("cancelled-in-review", "image-v1");
      expected.put(review, Phase.DELIVERED);
      expected.put(cancelled, Phase.ABANDONED);
      Drills.require(
          STATE,
          "two reviews",
          () -> stack.inPhase(review, "in_review") && stack.inPhase(cancelled, "in_review"));
      // Cancelled in review (opened before the cancel): the ledger ends it abandoned at once, its
      // remote job recorded if known, and its workflow completes under the previous release.
      stack.cli(
          previous,
          "ops",
          "cancel",
          "--by=upgrade-test",
          "--reason=cancelled in review",
          cancelled);

      stack.cli(previous, "ops", "pause-dispatch", "--by=upgrade-test", "--reason=rollout");
      String paused = stack.startOperation("pending-paused", "image-v1");
      expected.put(paused, Phase.DELIVERED);
      Drills.require(STATE, "pending under a pause", () -> stack.inPhase(paused, "pending"));

      Map<String, String> before = phases(stack, expected.keySet());
      System.out.println("upgrade: under " + previous.version() + " before the rollout: " + before);
      assertThat(before)
          .as("the states the rollout meets")
          .containsEntry(delivered, "delivered")
          .containsEntry(credits, "pending")
          .containsEntry(observing, "observing")
          .containsEntry(delivering, "delivering")
          .containsEntry(review, "in_review")
          .containsEntry(cancelled, "abandoned")
          .containsEntry(paused, "pending");

      // The rollout: the old worker drains and exits, the schema moves on, the new worker starts.
      assertThat(oldWorker.drain(Duration.ofSeconds(60))).as("the old worker's exit code").isZero();
      stack.cli(current, "db", "migrate");
      stack
          .startWorker("worker-" + current.version(), stack.workerEnvironment(), current)
          .awaitReady(READY);
      stack.cli(current, "ops", "resume-dispatch", "--by=upgrade-test");
      stack.cli(
          current,
          "ops",
          "resolve",
          "--by=upgrade-operator",
          "--reason=job seen on Genace",
          "--found-remote-job=" + stack.simulatorControl.jobsFor(review).get(0),
          review);
      stack.artifactStoreWritable(true);
      stack.simulatorControl.faults("{\"search_enabled\": true}");

      DrillFigures settled = stack.settle(Duration.ofSeconds(240));
      Map<String, String> after = phases(stack, expected.keySet());
      WorkflowHistories.Counts tasks = histories.count();
      long posts =
          stack.simulatorControl.postsByOperation().values().stream().mapToLong(n -> n).sum();
      long inReview = after.values().stream().filter("in_review"::equals).count();
      String line =
          String.format(
              Locale.ROOT,
              "upgrade from=%s to=%s operations=%d delivered=%d abandoned=%d failed=%d in_review=%d"
                  + " posts=%d duplicate_posts=%d lost=%d workflow_task_failures=%d"
                  + " continued_as_new=%d settle_s=%.1f seed=%d",
              previous.version(),
              current.version(),
              expected.size(),
              count(after, "delivered"),
              count(after, "abandoned"),
              count(after, "failed"),
              inReview,
              posts,
              settled.duplicatePosts(),
              settled.lost() - inReview,
              tasks.workflowTaskFailures(),
              tasks.continuedAsNew(),
              settled.settleSeconds(),
              stack.seed);
      report(line);
      String why =
          line
              + "\n"
              + String.join("\n", settled.problems())
              + "\n"
              + String.join("\n", tasks.failures());
      assertThat(tasks.workflowTaskFailures()).as("workflow task failures; " + why).isZero();
      assertThat(settled.duplicatePosts()).as("duplicate POSTs; " + why).isZero();
      assertThat(settled.lost()).as("operations lost or not ended; " + why).isZero();
      assertThat(after)
          .as("how each operation ended; " + why)
          .isEqualTo(
              expected.entrySet().stream()
                  .collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().wire())));

      deliveredOneIsStillReadable(stack, current, delivered);
    }
  }

  /** {@code ops show}, the workflow's {@code describe} and its result, all by the new release. */
  private static void deliveredOneIsStillReadable(DrillStack stack, Release current, String id)
      throws Exception {
    JsonNode shown = JSON.readTree(stack.cli(current, "ops", "show", "--json", id));
    assertThat(shown.toString()).as("ops show --json " + id).contains("\"delivered\"");
    OperationView view = stack.client.describe(id);
    assertThat(view.phase()).as("describe " + id).isEqualTo(Phase.DELIVERED);
    assertThat(view.artifacts()).as("describe's artifacts").isNotEmpty();
    OperationResult result = stack.client.awaitResult(id, Duration.ofSeconds(30));
    assertThat(result.phase()).as("result of " + id).isEqualTo(Phase.DELIVERED);
    assertThat(result.artifacts()).as("result's artifacts").isEqualTo(view.artifacts());
    System.out.println(
        "upgrade: " + id + " readable by " + current.version() + ": ops show, describe, result");
  }

  private static Map<String, String> phases(DrillStack stack, java.util.Set<String> ids) {
    Map<String, String> phases = new TreeMap<>();
    for (String id : ids) {
      phases.put(id, stack.operation(id).map(op -> op.phase()).orElse("(no row)"));
    }
    return phases;
  }

  private static long count(Map<String, String> phases, String phase) {
    return phases.values().stream().filter(phase::equals).count();
  }

  private static void report(String line) throws java.io.IOException {
    System.out.println(line);
    Files.createDirectories(FIGURES_FILE.getParent());
    Files.writeString(
        FIGURES_FILE,
        line + System.lineSeparator(),
        StandardOpenOption.CREATE,
        StandardOpenOption.APPEND);
  }
}
