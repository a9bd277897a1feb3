package com.genace.ops.support;

import com.genace.ops.Environment;
import com.genace.ops.GenaceCli;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Map;

/** Runs the launcher's entry point in-process and captures what it prints. */
public final class CliRunner {

  public record Result(int exitCode, String out, String err) {}

  public static Result run(Map<String, String> env, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code =
        GenaceCli.execute(
            new Environment(env), new PrintWriter(out, true), new PrintWriter(err, true), args);
    return new Result(code, out.toString(), err.toString());
  }

  private CliRunner() {}
}
