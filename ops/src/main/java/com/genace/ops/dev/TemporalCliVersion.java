package com.genace.ops.dev;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** What {@code temporal --version} prints, which also proves that the binary runs here. */
final class TemporalCliVersion {

  private static final long TIMEOUT_SECONDS = 30;

  private TemporalCliVersion() {}

  /**
   * The first line of {@code cli --version}.
   *
   * @throws IOException when it cannot run, fails or does not answer in time
   */
  static String of(Path cli) throws IOException {
    Process process =
        new ProcessBuilder(cli.toString(), "--version")
            .redirectErrorStream(true)
            .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))
            .start();
    try {
      if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new IOException(cli + " --version did not answer within " + TIMEOUT_SECONDS + " s");
      }
      String output =
          new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
      if (process.exitValue() != 0) {
        throw new IOException(
            cli + " --version exited with " + process.exitValue() + ": " + output);
      }
      int end = output.indexOf('\n');
      return end < 0 ? output : output.substring(0, end);
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while running " + cli + " --version", e);
    }
  }
}
