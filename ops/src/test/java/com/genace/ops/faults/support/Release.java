package com.genace.ops.faults.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A build of Genace whose CLI a drill runs in processes of their own ({@code java -cp <classpath>
 * com.genace.ops.GenaceCli ...}): this build (the test's own classpath), or a previous release
 * built by {@code scripts/previous-release.sh} into a directory holding {@code genace-ops.jar},
 * {@code lib/} and {@code version}.
 *
 * @param version the release's version, as its pom or its {@code version} file says
 */
public record Release(String version, String classpath) {

  /** The directory of the previous release's build, set by {@code .ci/run}'s upgrade tier. */
  public static final String PREVIOUS_VARIABLE = "GENACE_PREVIOUS_RELEASE";

  /** This build: the classes the test runs. */
  public static final Release CURRENT =
      new Release(currentVersion(), System.getProperty("java.class.path"));

  /**
   * The previous release, from the directory in {@value #PREVIOUS_VARIABLE}.
   *
   * @throws IllegalStateException when it is not set or holds no build
   */
  public static Release previous() {
    String dir = System.getenv(PREVIOUS_VARIABLE);
    if (dir == null || dir.isBlank()) {
      throw new IllegalStateException(
          PREVIOUS_VARIABLE
              + " is not set: the upgrade test needs the previous release's build"
              + " (scripts/previous-release.sh prints its directory)");
    }
    Path build = Path.of(dir).toAbsolutePath();
    Path jar = build.resolve("genace-ops.jar");
    if (!Files.isRegularFile(jar) || !Files.isDirectory(build.resolve("lib"))) {
      throw new IllegalStateException(build + " holds no genace-ops.jar and lib/");
    }
    try {
      return new Release(
          Files.readString(build.resolve("version")).strip(),
          jar + java.io.File.pathSeparator + build.resolve("lib") + "/*");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The command line that runs this release's CLI with these arguments. */
  public List<String> command(String... args) {
    List<String> command = new ArrayList<>();
    command.add(ProcessHandle.current().info().command().orElse("java"));
    command.addAll(List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"));
    command.addAll(List.of("-cp", classpath, "com.genace.ops.GenaceCli"));
    command.addAll(List.of(args));
    return command;
  }

  /**
   * Runs this release's CLI to its end, its output appended to {@code log}.
   *
   * @return what it printed on stdout
   * @throws IllegalStateException with the log's tail when it fails
   */
  public String run(Map<String, String> env, Path log, String... args)
      throws IOException, InterruptedException {
    return Drills.run(command(args), env, log);
  }

  private static String currentVersion() {
    try {
      Matcher version =
          Pattern.compile("<artifactId>genace-worker-parent</artifactId>\\s*<version>([^<]+)<")
              .matcher(Files.readString(Drills.repositoryRoot().resolve("pom.xml")));
      return version.find() ? version.group(1) : "unknown";
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
