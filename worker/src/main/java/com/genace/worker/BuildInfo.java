package com.genace.worker;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/**
 * The version and the commit this build was made from, written into the jar by the build (the
 * worker module's {@code build.properties}). A build outside a git checkout has no commit.
 */
public record BuildInfo(String version, String commit) {

  private static final String RESOURCE = "build.properties";
  public static final String UNKNOWN = "unknown";

  /** What this jar was built from. */
  public static BuildInfo current() {
    Properties properties = new Properties();
    try (InputStream in = BuildInfo.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException(RESOURCE + " is missing from the worker's jar");
      }
      properties.load(in);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + RESOURCE, e);
    }
    return new BuildInfo(
        filled(properties.getProperty("version")), filled(properties.getProperty("commit")));
  }

  /** The commit's first 12 hex digits, or {@value #UNKNOWN}. */
  public String shortCommit() {
    return commit.equals(UNKNOWN) ? UNKNOWN : commit.substring(0, Math.min(12, commit.length()));
  }

  /** {@code genace 0.2.0 (commit 6e5593098d28)}: what {@code ./genace --version} prints. */
  public String describe() {
    return "genace " + version + " (commit " + shortCommit() + ")";
  }

  /** A property the build could not fill stays {@code ${...}}. */
  private static String filled(String value) {
    return value == null || value.isBlank() || value.startsWith("${") ? UNKNOWN : value;
  }
}
