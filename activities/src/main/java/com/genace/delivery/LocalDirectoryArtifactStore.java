package com.genace.delivery;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * An artifact store in a local directory. Downloads are staged under {@code .staging/} in the same
 * file system and renamed into place, so an object is either absent or complete.
 */
public final class LocalDirectoryArtifactStore implements ArtifactStore {

  private final Path root;
  private final Path staging;

  public LocalDirectoryArtifactStore(Path root) {
    this.root = root.toAbsolutePath().normalize();
    this.staging = this.root.resolve(".staging");
    try {
      Files.createDirectories(staging);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create the artifact directory " + this.root, e);
    }
  }

  @Override
  public boolean holds(String key, long bytes, String sha256) {
    Path path = pathOf(key);
    try {
      if (!Files.isRegularFile(path) || Files.size(path) != bytes) {
        return false;
      }
      return sha256Of(path).equalsIgnoreCase(sha256);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + path, e);
    }
  }

  @Override
  public Path stagingFile(String key) {
    pathOf(key);
    try {
      return Files.createTempFile(staging, "artifact-", ".part");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a staging file in " + staging, e);
    }
  }

  @Override
  public void put(String key, Path staged) {
    Path target = pathOf(key);
    try {
      Files.createDirectories(target.getParent());
      try {
        Files.move(
            staged, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(staged, target, StandardCopyOption.REPLACE_EXISTING);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot store " + key, e);
    }
  }

  @Override
  public String locate(String key) {
    return pathOf(key).toString();
  }

  private Path pathOf(String key) {
    Path path = root.resolve(key).normalize();
    if (!path.startsWith(root) || path.startsWith(staging) || key.isBlank()) {
      throw new IllegalArgumentException("artifact key escapes the store: " + key);
    }
    return path;
  }

  static String sha256Of(Path path) throws IOException {
    try (InputStream in = new DigestInputStream(Files.newInputStream(path), sha256())) {
      MessageDigest digest = ((DigestInputStream) in).getMessageDigest();
      in.transferTo(OutputStreamSink.INSTANCE);
      return HexFormat.of().formatHex(digest.digest());
    }
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is always available", e);
    }
  }

  /** Discards bytes; the digest stream computes as they pass. */
  private static final class OutputStreamSink extends java.io.OutputStream {
    static final OutputStreamSink INSTANCE = new OutputStreamSink();

    @Override
    public void write(int b) {}

    @Override
    public void write(byte[] b, int off, int len) {}
  }
}
