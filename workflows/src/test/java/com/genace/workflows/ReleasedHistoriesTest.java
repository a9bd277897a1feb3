package com.genace.workflows;

import static org.assertj.core.api.Assertions.assertThat;

import com.genace.workflows.lifecycle.RetentionWorkflowImpl;
import com.genace.workflows.lifecycle.SweepWorkflowImpl;
import com.genace.workflows.support.SavedHistories;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.testing.WorkflowReplayer;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerOptions;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Workflows a release started keep running on every later build. Each release keeps a copy of its
 * saved histories in {@code release/<version>/} (the generation workflow's paths in {@code
 * histories/}, the lifecycle workflows' passes beside), listed with their SHA-256 in {@code
 * histories.sha256}:
 *
 * <ol>
 *   <li>a released history is never re-recorded or removed: the list and the files agree;
 *   <li>every released history replays on the current code, until the release is retired: {@code
 *       release/<version>/retired.properties} records the count of its open runs that
 *       docs/workflow-versions.md asks for, which must be 0.
 * </ol>
 */
class ReleasedHistoriesTest {

  private static final String LIST = "histories.sha256";
  private static final String RETIRED = "retired.properties";

  private static TestWorkflowEnvironment environment;
  private static Worker worker;

  record Release(String version, Path directory) {
    @Override
    public String toString() {
      return version;
    }

    boolean retired() {
      return Files.exists(directory.resolve(RETIRED));
    }
  }

  record ReleasedHistory(Release release, Path file) {
    @Override
    public String toString() {
      return release.version() + ": " + release.directory().relativize(file);
    }
  }

  @BeforeAll
  static void startReplayWorker() {
    environment = TestWorkflowEnvironment.newInstance();
    // As in GenerationWorkflowReplayTest: class loading on a busy machine is not a deadlock.
    worker =
        environment.newWorker(
            "replay-released",
            WorkerOptions.newBuilder()
                .setDefaultDeadlockDetectionTimeout(Duration.ofSeconds(30).toMillis())
                .build());
    worker.registerWorkflowImplementationTypes(
        GenerationWorkflowImpl.class, SweepWorkflowImpl.class, RetentionWorkflowImpl.class);
  }

  @AfterAll
  static void stopReplayWorker() {
    environment.close();
  }

  static List<Release> releases() throws IOException {
    Path root = Path.of(System.getProperty("basedir", ".")).resolve("../release").normalize();
    try (Stream<Path> directories = Files.list(root)) {
      return directories
          .filter(Files::isDirectory)
          .sorted()
          .map(d -> new Release(d.getFileName().toString(), d))
          .toList();
    }
  }

  static List<ReleasedHistory> historiesToReplay() throws IOException {
    List<ReleasedHistory> histories = new ArrayList<>();
    for (Release release : releases()) {
      if (!release.retired()) {
        listed(release).keySet().stream()
            .map(name -> new ReleasedHistory(release, release.directory().resolve(name)))
            .forEach(histories::add);
      }
    }
    return histories;
  }

  @Test
  void release_0_1_0_keeps_its_histories() throws IOException {
    Release first = releases().get(0);

    assertThat(first.version()).isEqualTo("0.1.0");
    assertThat(listed(first).keySet())
        .hasSize(43)
        .contains(
            "histories/delivered.json",
            "histories/continued-review-found-remote-job-last-run.json.gz",
            "sweep-histories/sweep-found-one-orphan.json",
            "retention-histories/retention-deleted-one.json");
  }

  @ParameterizedTest(name = "release {0}")
  @MethodSource("releases")
  void a_released_history_is_never_rewritten_or_removed(Release release) throws IOException {
    if (release.retired()) {
      Properties retired = new Properties();
      try (InputStream in = Files.newInputStream(release.directory().resolve(RETIRED))) {
        retired.load(in);
      }
      assertThat(retired.getProperty("open_runs"))
          .as("a release is retired only when none of its runs is open")
          .isEqualTo("0");
      assertThat(retired.getProperty("counted_at")).as("when the runs were counted").isNotBlank();
      return;
    }
    Map<String, String> onDisk = new TreeMap<>();
    try (Stream<Path> files = Files.walk(release.directory())) {
      for (Path file : files.filter(SavedHistories::isHistory).toList()) {
        onDisk.put(release.directory().relativize(file).toString(), sha256(file));
      }
    }

    assertThat(onDisk)
        .as(
            "the histories %s shipped, as %s lists them: a released history is never re-recorded;"
                + " version the workflow change instead (docs/workflow-versions.md)",
            release.version(), LIST)
        .isEqualTo(listed(release));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("historiesToReplay")
  void a_released_history_replays_on_the_current_code(ReleasedHistory history) throws Exception {
    WorkflowReplayer.replayWorkflowExecution(SavedHistories.parse(history.file()), worker);
  }

  /** {@code sha256sum}'s format: the digest, two spaces, the path under the release. */
  private static Map<String, String> listed(Release release) throws IOException {
    Map<String, String> listed = new TreeMap<>();
    for (String line : Files.readAllLines(release.directory().resolve(LIST))) {
      if (!line.isBlank()) {
        listed.put(line.substring(66), line.substring(0, 64));
      }
    }
    return listed;
  }

  private static String sha256(Path file) throws IOException {
    try {
      return HexFormat.of()
          .formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
