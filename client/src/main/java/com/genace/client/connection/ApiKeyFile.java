package com.genace.client.connection;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.function.Supplier;

/**
 * {@code TEMPORAL_API_KEY_FILE}: the API key as the file holds it now. The SDK asks for the key on
 * every call, so a key rotated in the file (a Kubernetes Secret updated in place) is sent from the
 * next call on; the file is read again only when its modification time changes.
 */
final class ApiKeyFile implements Supplier<String> {

  private final Path file;
  private FileTime readAt;
  private String key;

  ApiKeyFile(Path file) {
    this.file = file;
  }

  @Override
  public synchronized String get() {
    try {
      FileTime modified = Files.getLastModifiedTime(file);
      if (!modified.equals(readAt)) {
        key = Files.readString(file).strip();
        readAt = modified;
      }
      return key;
    } catch (IOException e) {
      throw new UncheckedIOException(TemporalSettings.API_KEY_FILE + ": cannot read " + file, e);
    }
  }
}
