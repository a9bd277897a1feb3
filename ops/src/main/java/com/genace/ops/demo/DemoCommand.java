package com.genace.ops.demo;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import com.genace.client.GenerationRequest;
import com.genace.client.GenerationWorkflow;
import com.genace.client.model.Phase;
import com.genace.ops.dev.DevCommand;
import com.genace.testkit.simulator.Faults;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code genace demo}: N operations against the simulator, everything in this process.
 *
 * <ol>
 *   <li>start the stack ({@link DemoStack}) and submit N operations through the client API;
 *   <li>until all have ended: an operator thread resolves open reviews ({@link DemoOperator}) while
 *       this one shows the count per phase;
 *   <li>report from the ledger and from what the simulator saw ({@link DemoReport}); exit 1 if any
 *       operation was POSTed twice without an operator's say-so.
 * </ol>
 */
@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    description = {
      "Run N generation operations end to end, everything embedded in this process: PostgreSQL,"
          + " the Temporal test server, the Genace simulator (with delays and faults, including"
          + " lost POST responses) and the workers.",
      "A lost POST response puts its operation in uncertainty review; a simulated operator looks"
          + " it up on Genace and resolves it, as you would with ./genace ops resolve.",
      "Exit codes: 0 all operations ended and none was POSTed twice; 1 otherwise."
    })
public final class DemoCommand implements Callable<Integer> {

  static final int MAX_OPERATIONS = 1000;
  static final Duration TICK = Duration.ofMillis(200);
  static final Duration OPERATOR_INTERVAL = Duration.ofMillis(250);
  static final int SUBMITTERS = 8;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Option(
      names = "--operations",
      paramLabel = "N",
      defaultValue = "20",
      description = "How many operations (1.." + MAX_OPERATIONS + "; default ${DEFAULT-VALUE}).")
  int operations;

  @Option(
      names = "--json",
      description =
          "Print one JSON object with the counts as the last line of standard output;"
              + " progress goes to standard error.")
  boolean json;

  @Override
  public Integer call() throws InterruptedException {
    if (operations < 1 || operations > MAX_OPERATIONS) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "--operations must be between 1 and " + MAX_OPERATIONS);
    }
    PrintWriter out = spec.commandLine().getOut();
    Screen screen =
        new Screen(json ? spec.commandLine().getErr() : out, System.console() != null, 1000);
    Level previous = quietLogging();
    try {
      return run(out, screen);
    } finally {
      restoreLogging(previous);
    }
  }

  private int run(PrintWriter out, Screen screen) throws InterruptedException {
    long started = System.nanoTime();
    screen.event(
        "Genace demo: " + operations + " generation operations, everything in this process.");
    try (DemoStack stack = new DemoStack(step -> screen.event("  starting " + step + "..."))) {
      screen.event(
          "Genace (simulated): renders take 1.5 s; 10% fail; 5% of requests are answered 429 and"
              + " 2% 503;");
      screen.event(
          "  the response to the first POST is lost after Genace created the job, while Genace"
              + " offers no search: nobody knows whether a paid render exists, and a person"
              + " must look;");
      screen.event(
          "  then "
              + SELF_SETTLING_LOSSES
              + " more responses are lost with the search offered: each review finds the one job"
              + " carrying its operation id and settles itself.");
      List<String> ids = submit(stack);
      screen.event(
          "Submitted "
              + ids.size()
              + " operations ("
              + ids.get(0)
              + (ids.size() > 1 ? " .. " + ids.get(ids.size() - 1) : "")
              + "). An operator watches for reviews.");
      DemoOperator operator =
          new DemoOperator(stack.ledger, stack.simulator, stack.client, stack.posts, screen::event);
      ScheduledExecutorService operatorThread =
          Executors.newSingleThreadScheduledExecutor(
              runnable -> new Thread(runnable, "demo-operator"));
      operatorThread.scheduleWithFixedDelay(
          () -> {
            try {
              operator.tick(operations);
            } catch (RuntimeException e) {
              // Reported, and tried again at the next look: an operator does not give up.
              screen.event("operator: could not look at the reviews: " + e.getMessage());
            }
          },
          0,
          OPERATOR_INTERVAL.toMillis(),
          TimeUnit.MILLISECONDS);
      try {
        awaitAllEnded(stack, screen, started);
      } finally {
        operatorThread.shutdownNow();
        operatorThread.awaitTermination(10, TimeUnit.SECONDS);
      }
      long elapsedMs = (System.nanoTime() - started) / 1_000_000;
      DemoReport report = DemoReport.collect(ids, stack.ledger, stack.simulator, elapsedMs);
      if (json) {
        out.println(report.toJson());
      } else {
        report.printSummary(out);
        out.println();
        printWebUiWalkthrough(out);
      }
      out.flush();
      if (report.duplicatePosts() > 0 || report.duplicateRenders() > 0) {
        spec.commandLine()
            .getErr()
            .println(
                "genace: error: an operation was POSTed twice without an operator's not_submitted"
                    + " decision");
        return 1;
      }
      return 0;
    }
  }

  /** How to see the same story, a review resolved by an operator, in the Temporal Web UI. */
  static void printWebUiWalkthrough(PrintWriter out) {
    out.println(
        "Everything above ran in this process and is gone now. To see the same story in the"
            + " Temporal Web UI:");
    out.println(
        "  1. ./genace dev       the Temporal dev server and its Web UI, PostgreSQL, the simulator;"
            + " paste its export lines into a second terminal");
    out.println("  2. ./genace worker    in that second terminal");
    out.println(
        "  3. curl -X POST \"$GENACE_BASE_URL/_sim/faults\" -d"
            + " '{\"lose_post_response_next\":1,\"search_enabled\":false}'; ./genace submit"
            + " --model image-v1 --input '{\"prompt\":\"a red fox\"}'   (a lost POST response:"
            + " a review)");
    out.println(
        "  4. "
            + DevCommand.reviewsPage(DevCommand.DEFAULT_WEB_UI)
            + "   ("
            + DevCommand.REVIEWS_QUERY
            + "): open the operation, read its User Metadata, resolve it with More Actions -> Send"
            + " a Signal ("
            + GenerationWorkflow.RESOLUTION_SIGNAL
            + ") or ./genace ops resolve");
  }

  /** Shows the count per phase until every operation has ended, or fails after the timeout. */
  private void awaitAllEnded(DemoStack stack, Screen screen, long started)
      throws InterruptedException {
    long deadline = started + timeout().toNanos();
    while (true) {
      Map<Phase, Long> counts = stack.ledger.countByPhase();
      long ended = ended(counts);
      screen.status(status(counts, started), ended == operations);
      if (ended == operations) {
        screen.finish();
        return;
      }
      if (System.nanoTime() > deadline) {
        screen.finish();
        throw new IllegalStateException(
            "the demo did not finish within "
                + timeout().toSeconds()
                + " s; operations per phase: "
                + counts);
      }
      Thread.sleep(TICK.toMillis());
    }
  }

  /** Lost POST responses that settle themselves: Genace's search lists their job. */
  static final int SELF_SETTLING_LOSSES = 3;

  /**
   * The first operation's POST response is lost while this Genace offers no search, so its review
   * needs a person; once it waits for one, the search is offered again and the next {@value
   * #SELF_SETTLING_LOSSES} lost responses settle themselves.
   */
  private void loseTheFirstResponseWithoutSearch(DemoStack stack, String id, String input)
      throws InterruptedException {
    Faults normal = stack.simulator.faults();
    stack.simulator.setFaults(normal.withSearchEnabled(false).withLosePostResponseNext(1));
    stack.client.start(new GenerationRequest(id, "image-v1", input));
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (!stack.client.describe(id).awaitsOperator()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(id + " did not reach its review within 60 s");
      }
      Thread.sleep(TICK.toMillis());
    }
    stack.simulator.setFaults(normal.withLosePostResponseNext(SELF_SETTLING_LOSSES));
  }

  /** Starts the operations from a few threads, as several application instances would. */
  private List<String> submit(DemoStack stack) throws InterruptedException {
    int width = Math.max(2, Integer.toString(operations).length());
    List<String> ids = new ArrayList<>();
    List<Callable<Object>> starts = new ArrayList<>();
    for (int i = 1; i <= operations; i++) {
      String id = String.format("demo-%0" + width + "d", i);
      String input = "{\"prompt\":\"demo render " + i + "\"}";
      ids.add(id);
      if (i == 1) {
        loseTheFirstResponseWithoutSearch(stack, id, input);
      } else {
        starts.add(() -> stack.client.start(new GenerationRequest(id, "image-v1", input)));
      }
    }
    ExecutorService submitters = Executors.newFixedThreadPool(SUBMITTERS);
    try {
      for (Future<Object> start : submitters.invokeAll(starts)) {
        start.get();
      }
    } catch (ExecutionException e) {
      throw new IllegalStateException(
          "could not start an operation: " + e.getCause().getMessage(), e.getCause());
    } finally {
      submitters.shutdownNow();
    }
    return ids;
  }

  /** Generous: 20 operations take about 10 s on two cores. */
  private Duration timeout() {
    return Duration.ofSeconds(60 + operations / 4);
  }

  private static long ended(Map<Phase, Long> counts) {
    return counts.get(Phase.DELIVERED) + counts.get(Phase.FAILED) + counts.get(Phase.ABANDONED);
  }

  private String status(Map<Phase, Long> counts, long started) {
    StringBuilder line =
        new StringBuilder(
            String.format(
                "[%5.1f s] %d/%d ended (%d delivered, %d failed, %d abandoned)",
                (System.nanoTime() - started) / 1e9,
                ended(counts),
                operations,
                counts.get(Phase.DELIVERED),
                counts.get(Phase.FAILED),
                counts.get(Phase.ABANDONED)));
    String separator = " | ";
    for (Phase phase : Phase.values()) {
      if (!phase.isTerminal() && counts.get(phase) > 0) {
        line.append(separator).append(phase.wire()).append(' ').append(counts.get(phase));
        separator = ", ";
      }
    }
    return line.toString();
  }

  /** Library warnings would bury the story; errors still show. */
  private static Level quietLogging() {
    if (LoggerFactory.getILoggerFactory() instanceof LoggerContext context) {
      ch.qos.logback.classic.Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
      Level previous = root.getLevel();
      root.setLevel(Level.ERROR);
      return previous;
    }
    return null;
  }

  private static void restoreLogging(Level previous) {
    if (previous != null && LoggerFactory.getILoggerFactory() instanceof LoggerContext context) {
      context.getLogger(Logger.ROOT_LOGGER_NAME).setLevel(previous);
    }
  }
}
