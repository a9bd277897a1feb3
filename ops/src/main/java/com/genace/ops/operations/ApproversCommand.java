package com.genace.ops.operations;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.genace.activities.ledger.ApproverRecords;
import com.genace.client.review.ApprovalKeys;
import com.genace.ops.Environment;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyPair;
import java.security.PublicKey;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code genace ops approvers add|list|remove|keygen}: who may sign a decision that spends again
 * ({@code not_submitted}). Adding and removing need the operator role ({@code genace_operate});
 * until one approver is registered, spending is unguarded.
 */
@Command(
    name = "approvers",
    mixinStandardHelpOptions = true,
    description = {
      "Who may approve a decision that sends a second paid POST (not_submitted): names and"
          + " Ed25519 public keys, in DATABASE_URL. With none registered, spending is unguarded.",
    },
    subcommands = {
      ApproversCommand.Add.class,
      ApproversCommand.ListApprovers.class,
      ApproversCommand.Remove.class,
      ApproversCommand.Keygen.class
    })
final class ApproversCommand implements Runnable {

  static final String UNGUARDED =
      "no approver registered: spending is unguarded (any not_submitted is accepted unsigned)";

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(), "missing command");
  }

  @Command(
      name = "add",
      mixinStandardHelpOptions = true,
      description = "Register NAME's Ed25519 public key (PEM, as openssl pkey -pubout writes it).")
  static final class Add implements Runnable {
    private final Environment env;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Parameters(index = "0", paramLabel = "NAME", description = "The approver (their --by).")
    String name;

    @Option(names = "--key", required = true, paramLabel = "FILE", description = "Public key PEM.")
    Path key;

    @Option(names = "--by", paramLabel = "NAME", description = "Who adds it (default: $USER).")
    String by;

    Add(Environment env) {
      this.env = env;
    }

    @Override
    public void run() {
      PublicKey publicKey;
      try {
        publicKey = ApprovalKeys.publicKey(Files.readString(key));
      } catch (IOException e) {
        throw new CommandLine.ParameterException(spec.commandLine(), "--key: cannot read " + key);
      } catch (IllegalArgumentException e) {
        throw new CommandLine.ParameterException(
            spec.commandLine(), "--key: " + key + " is " + e.getMessage());
      }
      String who = by != null && !by.isBlank() ? by : env.get("USER").orElse("operator");
      boolean added;
      try (LedgerAccess access = LedgerAccess.open(env)) {
        added =
            access.ledger(
                ledger -> ledger.approvers().add(name, ApprovalKeys.stored(publicKey), who));
      } catch (IllegalArgumentException e) {
        throw new CommandLine.ParameterException(spec.commandLine(), "NAME: " + e.getMessage());
      }
      if (!added) {
        throw new IllegalStateException(
            "approver " + name + " is registered already; remove it first to change its key");
      }
      spec.commandLine()
          .getOut()
          .println(
              "approver " + name + " added by " + who + ": not_submitted now needs a signature");
    }
  }

  @Command(
      name = "list",
      mixinStandardHelpOptions = true,
      description = "The registered approvers.")
  static final class ListApprovers implements Runnable {
    private final Environment env;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Option(names = "--json", description = "One JSON object.")
    boolean json;

    ListApprovers(Environment env) {
      this.env = env;
    }

    @Override
    public void run() {
      List<ApproverRecords.Approver> approvers;
      try (LedgerAccess access = LedgerAccess.open(env)) {
        approvers = access.ledger(ledger -> ledger.approvers().list());
      }
      PrintWriter out = spec.commandLine().getOut();
      if (json) {
        ObjectMapper mapper = new ObjectMapper();
        ObjectNode document = mapper.createObjectNode().put("guarded", !approvers.isEmpty());
        ArrayNode list = document.putArray("approvers");
        approvers.forEach(
            a ->
                list.addObject()
                    .put("name", a.name())
                    .put("public_key", a.publicKey())
                    .put("added_by", a.addedBy())
                    .put("added_at", a.addedAt().toString()));
        out.println(document);
        return;
      }
      if (approvers.isEmpty()) {
        out.println(UNGUARDED);
        return;
      }
      TextTable table = new TextTable("NAME", "ADDED BY", "ADDED AT", "PUBLIC KEY");
      approvers.forEach(
          a -> table.row(a.name(), a.addedBy(), a.addedAt().toString(), a.publicKey()));
      table.print(out);
    }
  }

  @Command(name = "remove", mixinStandardHelpOptions = true, description = "Unregister NAME.")
  static final class Remove implements Runnable {
    private final Environment env;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Parameters(index = "0", paramLabel = "NAME")
    String name;

    Remove(Environment env) {
      this.env = env;
    }

    @Override
    public void run() {
      boolean removed;
      boolean anyLeft;
      try (LedgerAccess access = LedgerAccess.open(env)) {
        removed = access.ledger(ledger -> ledger.approvers().remove(name));
        anyLeft = access.ledger(ledger -> ledger.approvers().anyRegistered());
      }
      if (!removed) {
        throw new IllegalStateException("no approver " + name);
      }
      spec.commandLine()
          .getOut()
          .println("approver " + name + " removed" + (anyLeft ? "" : "; " + UNGUARDED));
    }
  }

  @Command(
      name = "keygen",
      mixinStandardHelpOptions = true,
      description =
          "Write a new Ed25519 key pair for NAME: DIR/NAME.key (private, owner-only: point"
              + " GENACE_OPERATOR_KEY at it) and DIR/NAME.pub (for ops approvers add).")
  static final class Keygen implements Runnable {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Parameters(index = "0", paramLabel = "NAME")
    String name;

    @Option(names = "--out", paramLabel = "DIR", description = "Where (default: .).")
    Path out = Path.of(".");

    Keygen(Environment env) {}

    @Override
    public void run() {
      if (!name.matches("[A-Za-z0-9._-]{1,100}")) {
        throw new CommandLine.ParameterException(
            spec.commandLine(), "NAME: letters, digits, '.', '_' or '-' (it names the files)");
      }
      KeyPair pair = ApprovalKeys.generate();
      Path privateFile = out.resolve(name + ".key");
      Path publicFile = out.resolve(name + ".pub");
      try {
        Files.createDirectories(out);
        Files.createFile(
            privateFile,
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Files.writeString(privateFile, ApprovalKeys.pem(pair.getPrivate()));
        Files.writeString(publicFile, ApprovalKeys.pem(pair.getPublic()));
      } catch (java.nio.file.FileAlreadyExistsException e) {
        throw new IllegalStateException(privateFile + " exists: keep it, or remove it first");
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      spec.commandLine()
          .getOut()
          .println(
              "wrote "
                  + privateFile
                  + " (private: GENACE_OPERATOR_KEY) and "
                  + publicFile
                  + " (ops approvers add "
                  + name
                  + " --key "
                  + publicFile
                  + ")");
    }
  }
}
