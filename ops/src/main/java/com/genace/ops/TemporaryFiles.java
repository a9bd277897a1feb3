package com.genace.ops;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** The working directories of the embedded stacks ({@code demo}, {@code dev}), removed at exit. */
public final class TemporaryFiles {

  private TemporaryFiles() {}

  /**
   * Removes {@code root} and everything under it, best effort: what cannot be removed (a worker
   * running as another user may have written files this user cannot delete; the launcher, which
   * started the stack as that user, removes them) is left for the system's temporary-file cleanup.
   */
  public static void deleteRecursively(Path root) {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(path);
      }
    } catch (IOException | UncheckedIOException e) {
      // see above
    }
  }
}
