package com.genace.ops.bench;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import com.genace.activities.ledger.AccountSettings;
import com.genace.client.Urgency;
import com.genace.client.connection.TemporalSettings;
import com.genace.ops.Environment;
import com.genace.ops.dev.TemporalCliLocator;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code genace bench ledger|e2e|scale|soak|first-minute|fleet|fair}: each measures ours and its
 * baseline side by side in the same run, on the same services. Progress goes to standard error; the
 * figures to standard output ({@code --json}: one JSON object, last). See docs/performance.md.
 */
@Command(
    name = "bench",
    mixinStandardHelpOptions = true,
    description = {
      "Benchmarks, each with its baseline measured side by side in the same run on the same"
          + " services: embedded by default (PostgreSQL, the Temporal test server, the Genace"
          + " simulator), or DATABASE_URL, TEMPORAL_ADDRESS and GENACE_BASE_URL (a simulator)."
          + " They write rows: point DATABASE_URL at a scratch database.",
      "Machines are noisy: compare figures from the same run, not across runs. See"
          + " docs/performance.md."
    },
    subcommands = {
      BenchCommand.Ledger.class,
      BenchCommand.EndToEnd.class,
      BenchCommand.Scale.class,
      BenchCommand.Soak.class,
      BenchCommand.FirstMinute.class,
      BenchCommand.Fleet.class,
      BenchCommand.Fair.class,
      BareWorker.Command.class,
      NaiveWorker.Command.class
    })
public final class BenchCommand implements Runnable {

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    throw new CommandLine.ParameterException(
        spec.commandLine(), "missing bench: ledger, e2e, scale, soak, first-minute, fleet or fair");
  }

  /** What every bench shares: the environment, {@code --json}, progress and the report. */
  abstract static class Base implements Callable<Integer> {

    final Environment env;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Option(
        names = "--json",
        description = "Print one JSON object with the figures as the last line of standard output.")
    boolean json;

    Base(Environment env) {
      this.env = env;
    }

    abstract BenchReport measure(BenchServices services, Consumer<String> progress)
        throws Exception;

    @Override
    public Integer call() throws Exception {
      PrintWriter err = spec.commandLine().getErr();
      Consumer<String> progress =
          line -> {
            err.println("bench: " + line);
            err.flush();
          };
      Level previous = quietLogging();
      BenchReport report;
      try (BenchServices services = new BenchServices(env, progress)) {
        report = measure(services, progress);
      } finally {
        restoreLogging(previous);
      }
      PrintWriter out = spec.commandLine().getOut();
      if (json) {
        out.println(report.toJson());
      } else {
        report.printText(out);
      }
      out.flush();
      return 0;
    }

    void requireAtLeast(int value, int min, String option) {
      if (value < min) {
        throw new CommandLine.ParameterException(
            spec.commandLine(), option + " must be at least " + min);
      }
    }
  }

  @Command(
      name = "ledger",
      mixinStandardHelpOptions = true,
      description =
          "The ledger's claim, renew, fenced write and release against a bare claim"
              + " UPDATE on a table shaped like the ledger's, on the same PostgreSQL and the same"
              + " connections; a dispatch with a limited allowance against one without"
              + " (allowance_ratio, in dispatches per second); the allowance's reserve on an"
              + " empty history and after 100k past reservations.")
  static final class Ledger extends Base {

    @Option(
        names = "--clients",
        paramLabel = "N",
        defaultValue = "8",
        description = "Concurrent clients, one connection each (default ${DEFAULT-VALUE}).")
    int clients;

    @Option(
        names = "--seconds",
        paramLabel = "S",
        defaultValue = "20",
        description =
            "Measured seconds, shared by ours and the baseline (default ${DEFAULT-VALUE}).")
    int seconds;

    Ledger(Environment env) {
      super(env);
    }

    @Override
    BenchReport measure(BenchServices services, Consumer<String> progress) throws Exception {
      requireAtLeast(clients, 1, "--clients");
      requireAtLeast(seconds, 1, "--seconds");
      return new LedgerBench(services, progress).run(clients, Duration.ofSeconds(seconds));
    }
  }

  @Command(
      name = "e2e",
      mixinStandardHelpOptions = true,
      description =
          "N operations through the whole workflow (simulator with 0 ms renders, no faults)"
              + " against a naive workflow making the same HTTP calls without any of the safety,"
              + " and a bare workflow of three no-op activities, on the same Temporal server with"
              + " the same worker settings; each worker is a process of its own. Also Temporal"
              + " Cloud's billable actions per operation, from the histories.")
  static final class EndToEnd extends Base {

    @Option(
        names = "--operations",
        paramLabel = "N",
        defaultValue = "200",
        description = "Operations of each kind (default ${DEFAULT-VALUE}).")
    int operations;

    @Option(
        names = "--warm-up",
        paramLabel = "W",
        description =
            "Operations, naive and bare workflows run before the measured batches, not counted"
                + " (default N/2, at most 200). Thousands bring the workers nearer their steady"
                + " state.")
    Integer warmUp;

    EndToEnd(Environment env) {
      super(env);
    }

    @Override
    BenchReport measure(BenchServices services, Consumer<String> progress) throws Exception {
      requireAtLeast(operations, 2, "--operations");
      int warmUpSize = warmUp == null ? EndToEndBench.warmUpSize(operations) : warmUp;
      requireAtLeast(warmUpSize, 0, "--warm-up");
      return new EndToEndBench(services, progress).run(operations, warmUpSize);
    }
  }

  @Command(
      name = "scale",
      mixinStandardHelpOptions = true,
      description =
          "N operations observing long renders on one worker process (started here, with its"
              + " defaults): how many it observes, its heap, RSS and threads, the GET rate against"
              + " the polling policy's, and /readyz latency.")
  static final class Scale extends Base {

    @Option(
        names = "--operations",
        paramLabel = "N",
        defaultValue = "1000",
        description = "Operations (default ${DEFAULT-VALUE}).")
    int operations;

    @Option(
        names = "--measure-seconds",
        paramLabel = "S",
        defaultValue = "60",
        description =
            "How long GETs are counted once every observation polls at the slowest pace"
                + " (default ${DEFAULT-VALUE}).")
    int measureSeconds;

    Scale(Environment env) {
      super(env);
    }

    @Override
    BenchReport measure(BenchServices services, Consumer<String> progress) throws Exception {
      requireAtLeast(operations, 1, "--operations");
      requireAtLeast(measureSeconds, 1, "--measure-seconds");
      return new ScaleBench(services, progress).run(operations, Duration.ofSeconds(measureSeconds));
    }
  }

  @Command(
      name = "soak",
      mixinStandardHelpOptions = true,
      description =
          "A ledger of months: N ended operations spread over 30 days (with their transitions,"
              + " evidence and reservations) plus unfinished ones; at 1 %%, 10 %% and 100 %% of N the"
              + " hot statements, the fleet gauges, one sweeper pass and one retention pass, and the"
              + " hot statements while that pass runs, against without.")
  static final class Soak extends Base {

    @Option(
        names = "--operations",
        paramLabel = "N",
        defaultValue = "200000",
        description = "Ended operations at the largest size (default ${DEFAULT-VALUE}).")
    int operations;

    @Option(
        names = "--repeats",
        paramLabel = "R",
        defaultValue = "3",
        description =
            "Measurements of the hot statements at each size; the report gives their median and"
                + " spread (default ${DEFAULT-VALUE}).")
    int repeats;

    Soak(Environment env) {
      super(env);
    }

    @Override
    BenchReport measure(BenchServices services, Consumer<String> progress) throws Exception {
      requireAtLeast(operations, 100, "--operations");
      requireAtLeast(repeats, 1, "--repeats");
      return new SoakBench(services, progress).run(operations, repeats);
    }
  }

  @Command(
      name = "fleet",
      mixinStandardHelpOptions = true,
      description =
          "N worker processes (one JVM each) against one PostgreSQL and one Temporal server, the"
              + " simulator answering after 50 ms with 1 s renders: operations a second, statements"
              + " per operation, the lock waits sampled (which statement waited on which, across"
              + " workers or within one) and each worker's share of the dispatches; for each fleet"
              + " size, without an allowance and with one. Temporal is TEMPORAL_ADDRESS, else the"
              + " development server of the Temporal CLI (found as ./genace dev finds it), else with"
              + " --test-server the Java test server.")
  static final class Fleet extends Base {

    @Option(
        names = "--workers",
        paramLabel = "N[,N...]",
        split = ",",
        defaultValue = "1,2,4",
        description = "Fleet sizes (default ${DEFAULT-VALUE}).")
    List<Integer> workers;

    @Option(
        names = "--operations",
        paramLabel = "M",
        defaultValue = "300",
        description = "Operations of each run (default ${DEFAULT-VALUE}).")
    int operations;

    @Option(
        names = "--warm-up",
        paramLabel = "W",
        description =
            "Operations run on each new fleet before its runs, not measured (default M/3, at most"
                + " 100).")
    Integer warmUp;

    @Option(
        names = "--allowance",
        negatable = true,
        description =
            "Only with an allowance (--no-allowance: only without); by default both, each size"
                + " twice.")
    Boolean allowance;

    @Option(
        names = "--test-server",
        description =
            "The Java test server (in this process, sharing its CPU) instead of the development"
                + " server when TEMPORAL_ADDRESS is unset.")
    boolean testServer;

    Fleet(Environment env) {
      super(env);
    }

    @Override
    BenchReport measure(BenchServices services, Consumer<String> progress) throws Exception {
      for (int size : workers) {
        requireAtLeast(size, 1, "--workers");
      }
      requireAtLeast(operations, 1, "--operations");
      int warmUpSize = warmUp == null ? FleetBench.warmUpSize(operations) : warmUp;
      requireAtLeast(warmUpSize, 0, "--warm-up");
      if (!testServer && env.get(TemporalSettings.ADDRESS).isEmpty()) {
        services.useTemporalDevServer(
            TemporalCliLocator.forThisMachine(env, spec.commandLine().getErr()).locate());
      }
      List<Boolean> allowances = allowance == null ? List.of(false, true) : List.of(allowance);
      return new FleetBench(services, progress).run(workers, allowances, operations, warmUpSize);
    }
  }

  @Command(
      name = "fair",
      mixinStandardHelpOptions = true,
      description =
          "Fairness between accounts, on a Temporal server with fairness on: account big starts"
              + " B operations, then account small starts S; small's wait from its start to its"
              + " POST beside big against the same S alone (before and after, pooled:"
              + " small_wait_ratio), big's operations a second with small against without"
              + " (big_throughput_ratio), and the most renders an account had in flight above its"
              + " cap (over_cap, sampled). One worker process; the simulator answering after 50 ms"
              + " with renders that end at once. Temporal is TEMPORAL_ADDRESS (which must have"
              + " fairness on), else the development server of the Temporal CLI with fairness on.")
  static final class Fair extends Base {

    @Option(
        names = "--big",
        paramLabel = "B",
        defaultValue = "1000",
        description = "Operations of account big (default ${DEFAULT-VALUE}).")
    int big;

    @Option(
        names = "--small",
        paramLabel = "S",
        defaultValue = "20",
        description = "Operations of account small (default ${DEFAULT-VALUE}).")
    int small;

    @Option(
        names = "--big-cap",
        paramLabel = "N",
        defaultValue = "16",
        description = "Big's cap on renders in flight (default ${DEFAULT-VALUE}).")
    int bigCap;

    @Option(
        names = "--small-cap",
        paramLabel = "N",
        description = "Small's cap on renders in flight (default: none).")
    Integer smallCap;

    @Option(
        names = "--warm-up",
        paramLabel = "W",
        defaultValue = "100",
        description =
            "Operations of a third account run first, not measured (default ${DEFAULT-VALUE}).")
    int warmUp;

    @Option(
        names = "--small-weight",
        paramLabel = "W",
        description =
            "Small's fairness weight (ops accounts set --weight), 0.001 to 1000 (default: none, the"
                + " same as big's 1).")
    Double smallWeight;

    @Option(
        names = "--big-priority",
        paramLabel = "P",
        defaultValue = "normal",
        description =
            "The priority big's operations are started with, interactive, normal or batch (small's"
                + " is normal; default ${DEFAULT-VALUE}).")
    String bigPriority;

    @Option(
        names = "--no-fairness",
        description =
            "Start the development server with fairness off, the comparison run: every account's"
                + " tasks in one FIFO (no effect on a TEMPORAL_ADDRESS server).")
    boolean noFairness;

    Fair(Environment env) {
      super(env);
    }

    @Override
    BenchReport measure(BenchServices services, Consumer<String> progress) throws Exception {
      validate();
      if (env.get(TemporalSettings.ADDRESS).isEmpty()) {
        services.useTemporalDevServer(
            TemporalCliLocator.forThisMachine(env, spec.commandLine().getErr()).locate(),
            !noFairness);
      }
      String fairness =
          env.get(TemporalSettings.ADDRESS).isPresent()
              ? "as TEMPORAL_ADDRESS's server has it"
              : noFairness ? "off" : "on";
      return new FairBench(services, progress)
          .run(
              new FairBench.Plan(
                  big, small, bigCap, smallCap, smallWeight, Urgency.fromWire(bigPriority), warmUp))
          .put("temporal_fairness", fairness);
    }

    /** Before any service starts: a bad option costs nothing. */
    void validate() {
      requireAtLeast(big, 1, "--big");
      requireAtLeast(small, 1, "--small");
      requireAtLeast(bigCap, 1, "--big-cap");
      if (smallCap != null) {
        requireAtLeast(smallCap, 1, "--small-cap");
      }
      requireAtLeast(warmUp, 0, "--warm-up");
      if (smallWeight != null) {
        try {
          AccountSettings.requireWeight("--small-weight", smallWeight);
        } catch (IllegalArgumentException e) {
          throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
      }
      try {
        Urgency.fromWire(bigPriority);
      } catch (IllegalArgumentException e) {
        throw new CommandLine.ParameterException(
            spec.commandLine(), "--big-priority: " + e.getMessage());
      }
    }
  }

  @Command(
      name = "first-minute",
      mixinStandardHelpOptions = true,
      description =
          "A burst on a ledger without operations (new, or with --emptied one just emptied): N"
              + " clients each run a delivered operation's statements one new operation after"
              + " another; the first S seconds' throughput against S seconds from A on, by when"
              + " PostgreSQL has analyzed the grown table. ratio = first / later.")
  static final class FirstMinute extends Base {

    @Option(
        names = "--clients",
        paramLabel = "N",
        defaultValue = "8",
        description = "Concurrent clients, one connection each (default ${DEFAULT-VALUE}).")
    int clients;

    @Option(
        names = "--seconds",
        paramLabel = "S",
        defaultValue = "10",
        description = "Length of each measured window (default ${DEFAULT-VALUE}).")
    int seconds;

    @Option(
        names = "--after",
        paramLabel = "A",
        defaultValue = "60",
        description =
            "When the second window starts, in seconds from the burst's start (default"
                + " ${DEFAULT-VALUE}: after autovacuum's first look, once a minute by default).")
    int after;

    @Option(
        names = "--warm-up",
        paramLabel = "W",
        defaultValue = "10",
        description =
            "Seconds of the same burst first, on a database of its own on the same server (dropped"
                + " after), so that the first window does not measure a cold client (default"
                + " ${DEFAULT-VALUE}; 0 for none).")
    int warmUp;

    @Option(
        names = "--emptied",
        description =
            "Start on a ledger just emptied (20,000 operations inserted, analyzed, deleted and"
                + " vacuumed away) instead of a new one.")
    boolean emptied;

    FirstMinute(Environment env) {
      super(env);
    }

    @Override
    BenchReport measure(BenchServices services, Consumer<String> progress) throws Exception {
      requireAtLeast(clients, 1, "--clients");
      requireAtLeast(seconds, 1, "--seconds");
      requireAtLeast(after, seconds, "--after");
      requireAtLeast(warmUp, 0, "--warm-up");
      return new FirstMinuteBench(services, progress)
          .run(
              clients,
              Duration.ofSeconds(seconds),
              Duration.ofSeconds(after),
              Duration.ofSeconds(warmUp),
              emptied);
    }
  }

  /** Library warnings would bury the progress; errors still show. */
  private static Level quietLogging() {
    if (LoggerFactory.getILoggerFactory() instanceof LoggerContext context) {
      ch.qos.logback.classic.Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
      Level previous = root.getLevel();
      root.setLevel(Level.ERROR);
      // The embedded Temporal test server logs a stack trace for every workflow task that a
      // loaded machine lets time out; the bench reports what matters (a stuck batch) itself.
      context.getLogger("io.temporal").setLevel(Level.OFF);
      return previous;
    }
    return null;
  }

  private static void restoreLogging(Level previous) {
    if (previous != null && LoggerFactory.getILoggerFactory() instanceof LoggerContext context) {
      context.getLogger(Logger.ROOT_LOGGER_NAME).setLevel(previous);
      context.getLogger("io.temporal").setLevel(null);
    }
  }
}
