package com.genace.ops.operations;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.genace.activities.ledger.AccountSettings;
import com.genace.ops.Environment;
import java.io.PrintWriter;
import java.util.List;
import java.util.OptionalInt;
import picocli.CommandLine;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code genace ops accounts set|list}: each account's cap on renders in flight across the fleet. A
 * dispatch over its account's cap waits (it never fails and never POSTs); observation and delivery
 * carry on. Setting needs the operator role ({@code genace_operate}).
 */
@Command(
    name = "accounts",
    mixinStandardHelpOptions = true,
    description = {
      "Each account's cap on renders in flight (POST sent, render not ended) across the fleet, in"
          + " DATABASE_URL. A dispatch over its account's cap waits; nothing else does."
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
      description = "Set ACCOUNT's cap (--max-in-flight N), or take it off (--no-cap).")
  static final class Set implements Runnable {
    private final Environment env;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Parameters(index = "0", paramLabel = "ACCOUNT")
    String account;

    @ArgGroup(multiplicity = "1")
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
    public void run() {
      if (cap.maxInFlight != null && cap.maxInFlight < 0) {
        throw new CommandLine.ParameterException(
            spec.commandLine(), "--max-in-flight is 0 or more, not " + cap.maxInFlight);
      }
      OptionalInt limit = cap.noCap ? OptionalInt.empty() : OptionalInt.of(cap.maxInFlight);
      String who = by != null && !by.isBlank() ? by : env.get("USER").orElse("operator");
      try (LedgerAccess access = LedgerAccess.open(env)) {
        boolean known = access.ledger(ledger -> ledger.accounts().known(account));
        if (!known && !allowNew) {
          throw new IllegalStateException(
              "account "
                  + account
                  + " has no operation in the ledger: check the name, or give --new to cap it"
                  + " before its first operation");
        }
        access.ledger(
            ledger -> {
              ledger.accounts().setCap(account, limit, who);
              return null;
            });
      } catch (IllegalArgumentException e) {
        throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
      }
      spec.commandLine()
          .getOut()
          .println(
              "account "
                  + account
                  + ": "
                  + (limit.isPresent()
                      ? "at most " + limit.getAsInt() + " render(s) in flight"
                      : "no cap")
                  + " (set by "
                  + who
                  + "; every worker holds it within "
                  + AccountSettings.CAPPED_RECHECK.toSeconds()
                  + " s)");
    }
  }

  @Command(
      name = "list",
      mixinStandardHelpOptions = true,
      description = "The accounts with settings: cap, renders in flight now, who set it.")
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
      TextTable table = new TextTable("ACCOUNT", "MAX IN FLIGHT", "IN FLIGHT", "SET BY", "SET AT");
      accounts.forEach(
          a ->
              table.row(
                  a.account(),
                  a.maxInFlight().isPresent() ? Integer.toString(a.maxInFlight().getAsInt()) : "-",
                  Long.toString(a.inFlight()),
                  a.updatedBy().orElse(""),
                  a.updatedAt().map(Object::toString).orElse("")));
      table.print(out);
    }
  }
}
