package com.genace.ops.faults;

import static org.assertj.core.api.Assertions.assertThat;

import com.genace.client.review.ReviewResolution;
import com.genace.ops.faults.support.DrillStack;
import com.genace.ops.faults.support.DrillWorker;
import com.genace.ops.faults.support.Drills;
import com.genace.ops.faults.support.PostgresServer;
import com.genace.ops.faults.support.Release;
import com.genace.ops.faults.support.Seeds;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The restore tier (docs/fault-drills.md): one store restored or lost while the other holds the
 * truth, on real servers (PostgreSQL 15 with {@code pg_dump} and {@code pg_restore}, the Temporal
 * dev server, real {@code genace worker} processes), with Genace offering no search. Each scenario
 * ends with every operation delivered, nobody answering a review, and one POST an operation.
 */
@Tag("faults")
class RestoreDrillTest {

  static final Duration START = Duration.ofSeconds(90);
  static final Duration DELIVERED = Duration.ofSeconds(120);

  @Test
  void a_ledger_restored_from_a_backup_taken_while_pending_is_repaired_without_a_person()
      throws Exception {
    try (DrillStack stack = DrillStack.start("restore-pending", Seeds.next())) {
      stack.simulatorControl.faults("{\"search_enabled\": false, \"job_duration_ms\": 1500}");
      DrillWorker worker = stack.startWorker("worker-a").awaitReady(START);
      ops(stack, "pause-dispatch", "--reason", "backup");
      List<String> ids = stack.startOperations(4);
      Drills.require(
          Duration.ofSeconds(60), "4 operations pending", () -> stack.phaseCount("pending") == 4);
      Instant backupTime = Instant.now();
      Path dump = dump(stack);
      ops(stack, "resume-dispatch", "--reason", "backup taken");
      requireDelivered(stack, ids);
      worker.close();

      restore(stack, dump);
      assertThat(stack.phaseCount("pending")).as("restored to pending").isEqualTo(4);
      ops(stack, "resume-dispatch", "--reason", "restored");
      stack.startWorker("worker-b").awaitReady(START);
      String recovered = ops(stack, "recover", "--since", backupTime.toString(), "--apply");

      requireDelivered(stack, ids);
      report(stack, recovered, ids);
    }
  }

  @Test
  void a_ledger_restored_from_a_backup_taken_while_observing_and_in_review_is_repaired()
      throws Exception {
    try (DrillStack stack = DrillStack.start("restore-observing", Seeds.next())) {
      // Two POSTs lose their response: reviews an operator answers before the backup.
      stack.simulatorControl.faults(
          "{\"search_enabled\": false, \"job_duration_ms\": 8000, \"lose_post_response_next\": 2}");
      DrillWorker worker = stack.startWorker("worker-a").awaitReady(START);
      List<String> ids = stack.startOperations(4);
      Drills.require(
          Duration.ofSeconds(60),
          "2 observing and 2 in review",
          () -> stack.phaseCount("observing") == 2 && stack.phaseCount("in_review") == 2);
      Instant backupTime = Instant.now();
      Path dump = dump(stack);
      for (String id : ids) {
        if (stack.inPhase(id, "in_review")) {
          String job = stack.simulatorControl.jobsFor(id).get(0);
          Drills.require(
              Duration.ofSeconds(30),
              "the review of " + id + " awaiting an operator",
              () -> stack.client.describe(id).awaitsOperator());
          stack.client.resolve(
              id,
              new ReviewResolution(
                  "found_remote_job", job, "drill: seen on Genace", "drill-operator"));
        }
      }
      requireDelivered(stack, ids);
      worker.close();

      restore(stack, dump);
      stack.startWorker("worker-b").awaitReady(START);
      String recovered = ops(stack, "recover", "--since", backupTime.toString(), "--apply");

      requireDelivered(stack, ids);
      report(stack, recovered, ids);
    }
  }

  @Test
  void a_temporal_restarted_on_an_empty_store_while_the_ledger_survives_delivers_every_job()
      throws Exception {
    try (DrillStack stack = DrillStack.start("restore-temporal-lost", Seeds.next())) {
      stack.simulatorControl.faults("{\"search_enabled\": false, \"job_duration_ms\": 15000}");
      DrillWorker worker = stack.startWorker("worker-a").awaitReady(START);
      List<String> ids = stack.startOperations(4);
      Drills.require(
          Duration.ofSeconds(60), "4 observing", () -> stack.phaseCount("observing") == 4);
      Instant lostAt = Instant.now();
      worker.close();
      stack.temporal.kill();
      try (var files = Files.list(stack.dir.resolve("temporal"))) {
        for (Path file :
            files.filter(f -> f.getFileName().toString().startsWith("temporal.db")).toList()) {
          Files.delete(file);
        }
      }
      stack.temporal.start();
      stack.startWorker("worker-b").awaitReady(START);
      String recovered = ops(stack, "recover", "--since", lostAt.toString(), "--apply");

      requireDelivered(stack, ids);
      report(stack, recovered, ids);
    }
  }

  /** Every operation delivered in the ledger, without anyone answering a review. */
  private static void requireDelivered(DrillStack stack, List<String> ids)
      throws InterruptedException {
    Drills.require(
        DELIVERED,
        "every operation delivered",
        () -> ids.stream().allMatch(id -> stack.inPhase(id, "delivered")));
  }

  private static void report(DrillStack stack, String recovered, List<String> ids)
      throws Exception {
    Map<String, Long> posts = stack.simulatorControl.postsByOperation();
    long secondPosts =
        ids.stream().mapToLong(id -> Math.max(0, posts.getOrDefault(id, 0L) - 1)).sum();
    long notSubmitted =
        stack.ledger.notSubmittedResolutions().values().stream().mapToLong(n -> n).sum();
    long repaired = recovered.lines().filter(line -> line.startsWith("  ")).count();
    stack
        .settle(Duration.ofSeconds(30))
        .with("second_posts", secondPosts)
        .with("not_submitted", notSubmitted)
        .with("repaired_by_ops_recover", repaired)
        .report();
    assertThat(secondPosts).as("second POSTs").isZero();
    assertThat(notSubmitted).as("not_submitted answered by a person").isZero();
  }

  private static String ops(DrillStack stack, String... args)
      throws IOException, InterruptedException {
    String[] command = new String[args.length + 1];
    command[0] = "ops";
    System.arraycopy(args, 0, command, 1, args.length);
    String output =
        Release.CURRENT.run(
            Map.of(
                "DATABASE_URL", stack.postgres.url(),
                "TEMPORAL_ADDRESS", stack.temporal.address(),
                "GENACE_ARTIFACT_DIR", stack.artifacts.toString()),
            stack.dir.resolve("ops-" + args[0] + ".log"),
            command);
    System.out.println("ops " + String.join(" ", args) + ":\n" + output);
    return output;
  }

  private static Path pgBin(String tool) {
    return Path.of(System.getenv().getOrDefault("GENACE_PG_BIN", PostgresServer.DEFAULT_BIN))
        .resolve(tool);
  }

  private static Path dump(DrillStack stack) throws IOException, InterruptedException {
    Path dump = stack.dir.resolve("ledger.dump");
    Drills.run(
        List.of(
            pgBin("pg_dump").toString(),
            "--format=custom",
            "--file=" + dump,
            "--dbname=" + stack.postgres.url()),
        stack.dir.resolve("pg_dump.log"));
    return dump;
  }

  private static void restore(DrillStack stack, Path dump)
      throws IOException, InterruptedException {
    Drills.run(
        List.of(
            pgBin("pg_restore").toString(),
            "--clean",
            "--if-exists",
            "--dbname=" + stack.postgres.url(),
            dump.toString()),
        stack.dir.resolve("pg_restore.log"));
    // Revisions seen before the restore are not stale-write evidence against the restored rows.
    stack.ledger.forgetRevisionsSeen();
  }
}
