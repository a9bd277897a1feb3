package com.genace.ops.simulator;

import com.genace.ops.Environment;
import com.genace.ops.ForegroundServices;
import com.genace.testkit.simulator.GenaceSimulator;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code genace simulator}: the Genace simulator alone, until Ctrl-C. */
@Command(
    name = "simulator",
    mixinStandardHelpOptions = true,
    description = {
      "Run the Genace simulator on 127.0.0.1 until Ctrl-C.",
      "It accepts any non-blank API key, or only GENACE_API_KEY when that is set.",
      "Control endpoints (no key needed): GET /_sim/stats, GET|POST /_sim/faults,"
          + " GET /_sim/jobs[?operation_id=ID], POST /_sim/reset."
    })
public final class SimulatorCommand implements Runnable {

  public static final int DEFAULT_PORT = 8787;

  private final Environment env;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Option(
      names = "--port",
      paramLabel = "PORT",
      description = "Port on 127.0.0.1 (default ${DEFAULT-VALUE}; 0 picks a free one).",
      defaultValue = "" + DEFAULT_PORT)
  int port;

  SimulatorCommand(Environment env) {
    this.env = env;
  }

  @Override
  public void run() {
    if (port < 0 || port > 65535) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "--port must be between 0 and 65535");
    }
    try (ForegroundServices services = new ForegroundServices()) {
      GenaceSimulator simulator = services.add(start(port, env));
      PrintWriter out = spec.commandLine().getOut();
      out.println("Genace simulator listening on " + simulator.baseUrl());
      out.println(
          env.get("GENACE_API_KEY").isPresent()
              ? "  API key: only the one in GENACE_API_KEY is accepted"
              : "  API key: any non-blank bearer token is accepted");
      describeEndpoints(out, simulator.baseUrl().toString(), "  ");
      out.println("Press Ctrl-C to stop.");
      out.flush();
      services.awaitStop();
    }
  }

  /** Starts a simulator, with the API key of {@code GENACE_API_KEY} when that is set. */
  public static GenaceSimulator start(int port, Environment env) {
    GenaceSimulator.Builder builder = GenaceSimulator.builder().port(port);
    env.get("GENACE_API_KEY").ifPresent(builder::apiKey);
    try {
      return builder.start();
    } catch (UncheckedIOException e) {
      throw new IllegalStateException(
          e.getMessage() + " (" + e.getCause().getMessage() + ")", e.getCause());
    }
  }

  /** The API and control endpoints, one per line. */
  public static void describeEndpoints(PrintWriter out, String base, String indent) {
    out.println(indent + "API:      POST " + base + "/v1/generations");
    out.println(indent + "          GET  " + base + "/v1/generations/{id}");
    out.println(indent + "          GET  " + base + "/v1/models");
    out.println(indent + "controls: GET  " + base + "/_sim/stats");
    out.println(
        indent
            + "          GET  "
            + base
            + "/_sim/faults   (POST to change, e.g. {\"lose_post_response_next\": 1})");
    out.println(indent + "          GET  " + base + "/_sim/jobs?operation_id=ID");
    out.println(indent + "          POST " + base + "/_sim/reset");
  }
}
