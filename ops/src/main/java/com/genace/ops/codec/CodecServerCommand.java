package com.genace.ops.codec;

import com.genace.client.connection.PayloadKeys;
import com.genace.ops.Environment;
import com.genace.ops.ForegroundServices;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code genace codec-server}: decodes encrypted payloads for the Web UI and the CLI. */
@Command(
    name = "codec-server",
    mixinStandardHelpOptions = true,
    description = {
      "Serve Temporal's remote codec protocol (POST /encode, POST /decode) with the keys of"
          + " GENACE_PAYLOAD_KEYS, so that the Web UI (--ui-codec-endpoint, or its Data Encoder"
          + " setting) and `temporal --codec-endpoint` show encrypted payloads decoded.",
      "With GENACE_CODEC_TOKEN set, every call needs `Authorization: Bearer TOKEN`; without it,"
          + " the server listens on loopback only."
    })
public final class CodecServerCommand implements Runnable {

  public static final String TOKEN_VARIABLE = "GENACE_CODEC_TOKEN";

  private final Environment env;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Option(
      names = "--listen",
      paramLabel = "HOST:PORT",
      description = "Address to listen on (default ${DEFAULT-VALUE}).",
      defaultValue = "127.0.0.1:8888")
  String listen;

  @Option(
      names = "--allow-origin",
      paramLabel = "ORIGIN",
      description =
          "A Web UI's origin let in by CORS, e.g. https://temporal.example.com (repeatable;"
              + " default the dev server's UI: http://127.0.0.1:8233 and http://localhost:8233).")
  List<String> allowOrigins = List.of("http://127.0.0.1:8233", "http://localhost:8233");

  CodecServerCommand(Environment env) {
    this.env = env;
  }

  @Override
  public void run() {
    PayloadKeys keys =
        PayloadKeys.fromEnvironment(env.variables())
            .orElseThrow(
                () ->
                    new CommandLine.ParameterException(
                        spec.commandLine(),
                        PayloadKeys.VARIABLE + " is not set: the codec server has no key to use"));
    for (String origin : allowOrigins) {
      if (!origin.matches("https?://[^/\\s]+")) {
        throw new CommandLine.ParameterException(
            spec.commandLine(),
            "--allow-origin " + origin + ": an origin is scheme://host[:port], with no path");
      }
    }
    Optional<String> token = env.get(TOKEN_VARIABLE).filter(value -> !value.isBlank());
    try (ForegroundServices services = new ForegroundServices()) {
      CodecServer server =
          services.add(
              CodecServer.start(address(), keys, new LinkedHashSet<>(allowOrigins), token));
      PrintWriter out = spec.commandLine().getOut();
      out.println("Codec server on " + server.endpoint() + " (" + keys + ")");
      out.println("  origins:  " + String.join(", ", allowOrigins));
      out.println(
          "  token:    "
              + (token.isPresent()
                  ? "required (" + TOKEN_VARIABLE + ")"
                  : "none: loopback only; set " + TOKEN_VARIABLE + " to require one"));
      out.println("  Web UI:   temporal server start-dev --ui-codec-endpoint " + server.endpoint());
      out.println("  CLI:      temporal workflow show -w ID --codec-endpoint " + server.endpoint());
      out.println("Press Ctrl-C to stop.");
      out.flush();
      services.awaitStop();
    }
  }

  private InetSocketAddress address() {
    int colon = listen.lastIndexOf(':');
    try {
      int port = Integer.parseInt(listen.substring(colon + 1));
      if (colon < 1 || port < 0 || port > 65535) {
        throw new NumberFormatException();
      }
      return new InetSocketAddress(listen.substring(0, colon), port);
    } catch (NumberFormatException e) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "--listen " + listen + ": expected HOST:PORT, the port 0 to 65535");
    }
  }
}
