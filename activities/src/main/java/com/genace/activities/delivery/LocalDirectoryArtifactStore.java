package com.genace.activities.delivery;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.util.HexFormat;

/**
 * An artifact store in a local directory. Content is staged under {@code .staging/} in the same
 * file system, checked as it is written, and renamed into place: an object is either absent or
 * complete. Whether a file is held is decided by hashing it, so a damaged file is copied again.
 */
public final class LocalDirectoryArtifactStore implements ArtifactStore {

  private final Path root;
  private final Path staging;

  /**
   * @throws UncheckedIOException when the directory cannot be created
   */
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
  public void check() {
    if (!Files.isDirectory(staging) || !Files.isWritable(staging)) {
      throw new ArtifactStoreException("the directory " + root + " is missing or not writable");
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
      throw new ArtifactStoreException("cannot read " + path + ": " + e.getMessage(), e);
    }
  }

  @Override
  public void put(String key, ArtifactContent content) {
    Path target = pathOf(key);
    Path staged = null;
    try {
      staged = Files.createTempFile(staging, "artifact-", ".part");
      try (InputStream in = content.stream();
          OutputStream out = Files.newOutputStream(staged)) {
        in.transferTo(out); // to the end of the stream, where the content is checked
      }
      Files.createDirectories(target.getParent());
      try {
        Files.move(
            staged, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(staged, target, StandardCopyOption.REPLACE_EXISTING);
      }
    } catch (IOException e) {
      throw new ArtifactStoreException("could not store " + key + ": " + e.getMessage(), e);
    } finally {
      deleteQuietly(staged);
    }
  }

  @Override
  public String locate(String key) {
    return pathOf(key).toUri().toString();
  }

  private Path pathOf(String key) {
    Path path = root.resolve(key).normalize();
    if (!path.startsWith(root) || path.startsWith(staging) || key.isBlank()) {
      throw new IllegalArgumentException("artifact key escapes the store: " + key);
    }
    return path;
  }

  private static String sha256Of(Path path) throws IOException {
    MessageDigest digest = ArtifactContent.sha256Digest();
    try (InputStream in = new DigestInputStream(Files.newInputStream(path), digest)) {
      in.transferTo(OutputStream.nullOutputStream());
    }
    return HexFormat.of().formatHex(digest.digest());
  }

  private static void deleteQuietly(Path path) {
    if (path == null) {
      return;
    }
    try {
      Files.deleteIfExists(path);
    } catch (IOException e) {
      // A leftover staging file is harmless: it is never read, and the next put makes its own.
    }
  }
}
