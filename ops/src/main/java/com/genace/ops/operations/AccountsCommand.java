package com.genace.ops.operations;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.genace.activities.ledger.AccountRestrictions;
import com.genace.activities.ledger.AccountSettings;
import com.genace.client.connection.GenerationConnection;
import com.genace.client.connection.TemporalSettings;
import com.genace.ops.Environment;
import com.genace.worker.temporal.FairnessWeights;
import com.genace.worker.temporal.TemporalConnection;
import java.io.PrintWriter;
import java.util.List;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code genace ops accounts set|list}: each account's cap on renders in flight across the fleet
 * and its fairness weight. A dispatch over its account's cap waits (it never fails and never
 * POSTs); observation and delivery carry on. The weight is the account's share of Temporal's task
 * queues when work is backlogged. Setting needs the operator role ({@code genace_operate}).
 */
@Command(
    name = "accounts",
    mixinStandardHelpOptions = true,
    description = {
      "Each account's cap on renders in flight (POST sent, render not ended) across the fleet, and"
          + " its fairness weight in Temporal's task queues, held in DATABASE_URL. A dispatch over"
          + " its account's cap waits; nothing else does."
    },
    subcommands = {AccountsCommand.Set.class, AccountsCommand.ListAccounts.class})
final class AccountsCommand implements Runnable {

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(), "missing command");
  }

  @Command(
      name = "set",
      mixinStandardHelpOptions = true,
      description = {
        "Set ACCOUNT's cap (--max-in-flight N, or --no-cap) and/or its fairness weight (--weight"
            + " W, or --default-weight).",
        "A weight is written to the ledger, then to Temporal (TEMPORAL_ADDRESS) on the task queues"
            + " genace-operations, genace-dispatch and genace-observation; every worker writes the"
            + " ledger's weights to Temporal again when it starts."
      })
  static final class Set implements Callable<Integer> {
    private final Environment env;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Parameters(index = "0", paramLabel = "ACCOUNT")
    String account;

    @ArgGroup(multiplicity = "0..1")
    Cap cap;

    static final class Cap {
      @Option(
          names = "--max-in-flight",
          paramLabel = "N",
          description = "At most N renders in flight at once (0 holds its every dispatch).")
      Integer maxInFlight;

      @Option(names = "--no-cap", description = "No cap.")
      boolean noCap;
    }

    @ArgGroup(multiplicity = "0..1")
    Weight weight;

    static final class Weight {
      @Option(
          names = "--weight",
          paramLabel = "W",
          description =
              "Its share against other accounts' when work waits (default 1; from 0.001 to 1000):"
                  + " an account of weight 3 gets three tasks for another's one.")
      Double weight;

      @Option(names = "--default-weight", description = "Temporal's default weight (1).")
      boolean defaultWeight;
    }

    @Option(
        names = "--new",
        description = "Allow an account the ledger has not seen yet (no operation of it so far).")
    boolean allowNew;

    @Option(names = "--by", paramLabel = "NAME", description = "Who sets it (default: $USER).")
    String by;

    Set(Environment env) {
      this.env = env;
    }

    @Override
    public Integer call() {
      if (cap == null && weight == null) {
        throw new CommandLine.ParameterException(
            spec.commandLine(), "give --max-in-flight N, --no-cap, --weight W or --default-weight");
      }
      if (cap != null && cap.maxInFlight != null && cap.maxInFlight < 0) {
        throw new CommandLine.ParameterException(
            spec.commandLine(), "--max-in-flight is 0 or more, not " + cap.maxInFlight);
      }
      OptionalDouble share = OptionalDouble.empty();
      if (weight != null && weight.weight != null) {
        try {
          AccountSettings.requireWeight("--weight", weight.weight);
        } catch (IllegalArgumentException e) {
          throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
        share = OptionalDouble.of(weight.weight);
      }
      String who = who();
      PrintWriter out = spec.commandLine().getOut();
      try (LedgerAccess access = LedgerAccess.open(env)) {
        boolean known = access.ledger(ledger -> ledger.accounts().known(account));
        if (!known && !allowNew) {
          throw new IllegalStateException(
              "account "
                  + account
                  + " has no operation in the ledger: check the name, or give --new to set it"
                  + " before its first operation");
        }
        if (cap != null) {
          OptionalInt limit = cap.noCap ? OptionalInt.empty() : OptionalInt.of(cap.maxInFlight);
          access.ledger(
              ledger -> {
                ledger.accounts().setCap(account, limit, who);
                return null;
              });
          out.println(
              "account "
                  + account
                  + ": "
                  + (limit.isPresent()
                      ? "at most " + limit.getAsInt() + " render(s) in flight"
                      : "no cap")
                  + " (set by "
                  + who
                  + "; every worker holds it within "
                  + AccountRestrictions.RECHECK.toSeconds()
                  + " s)");
        }
        if (weight != null) {
          OptionalDouble chosen = share;
          access.ledger(
              ledger -> {
                ledger.accounts().setWeight(account, chosen, who);
                return null;
              });
        }
      } catch (IllegalArgumentException e) {
        throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
      }
      return weight == null ? 0 : applyWeight(share, out);
    }

    /** The weight the ledger now holds, written to Temporal's task queues. */
    private int applyWeight(OptionalDouble share, PrintWriter out) {
      String said =
          share.isPresent() ? "fairness weight " + share.getAsDouble() : "the default weight (1)";
      TemporalSettings settings = TemporalSettings.fromEnvironment(env.variables());
      try (TemporalConnection temporal = TemporalConnection.open(settings)) {
        new FairnessWeights(
                temporal.stubs(), settings.namespace(), "genace ops accounts (" + who() + ")")
            .apply(account, share);
      } catch (RuntimeException e) {
        spec.commandLine()
            .getErr()
            .println(
                "account "
                    + account
                    + ": "
                    + said
                    + " is in the ledger, but Temporal did not take it ("
                    + GenerationConnection.describe(e)
                    + "); run this again, or restart a worker: every worker writes the ledger's"
                    + " weights to Temporal when it starts");
        return 1;
      }
      out.println(
          "account "
              + account
              + ": "
              + said
              + " on "
              + FairnessWeights.QUEUES.size()
              + " task queues (it orders an account's work only where the server runs with"
              + " fairness on)");
      return 0;
    }

    private String who() {
      return by != null && !by.isBlank() ? by : env.get("USER").orElse("operator");
    }
  }

  @Command(
      name = "list",
      mixinStandardHelpOptions = true,
      description =
          "The accounts with settings: cap, fairness weight, renders in flight now, who set it.")
  static final class ListAccounts implements Runnable {
    private final Environment env;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Option(names = "--json", description = "One JSON object.")
    boolean json;

    ListAccounts(Environment env) {
      this.env = env;
    }

    @Override
    public void run() {
      List<AccountSettings.Account> accounts;
      try (LedgerAccess access = LedgerAccess.open(env)) {
        accounts = access.ledger(ledger -> ledger.accounts().list());
      }
      PrintWriter out = spec.commandLine().getOut();
      if (json) {
        ObjectMapper mapper = new ObjectMapper();
        var document = mapper.createObjectNode();
        ArrayNode list = document.putArray("accounts");
        accounts.forEach(
            a -> {
              var entry = list.addObject().put("account", a.account());
              if (a.maxInFlight().isPresent()) {
                entry.put("max_in_flight", a.maxInFlight().getAsInt());
              } else {
                entry.putNull("max_in_flight");
              }
              if (a.weight().isPresent()) {
                entry.put("fairness_weight", a.weight().getAsDouble());
              } else {
                entry.putNull("fairness_weight");
              }
              entry
                  .put("in_flight", a.inFlight())
                  .put("updated_by", a.updatedBy().orElse(null))
                  .put("updated_at", a.updatedAt().map(Object::toString).orElse(null));
            });
        out.println(document);
        return;
      }
      if (accounts.isEmpty()) {
        out.println("no account has settings: none is capped");
        return;
      }
      TextTable table =
          new TextTable("ACCOUNT", "MAX IN FLIGHT", "WEIGHT", "IN FLIGHT", "SET BY", "SET AT");
      accounts.forEach(
          a ->
              table.row(
                  a.account(),
                  a.maxInFlight().isPresent() ? Integer.toString(a.maxInFlight().getAsInt()) : "-",
                  a.weight().isPresent()
                      ? Double.toString(a.weight().getAsDouble())
                      : "1 (default)",
                  Long.toString(a.inFlight()),
                  a.updatedBy().orElse(""),
                  a.updatedAt().map(Object::toString).orElse("")));
      table.print(out);
    }
  }
}
