package com.genace.ops.bench;

import com.genace.ops.TemporaryFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Consumer;

/**
 * A bench's scratch directory: its workers' logs and the artifacts they deliver (tens of megabytes
 * for a few thousand operations). Removed when the bench has its figures; kept, and named in the
 * progress, when it fails, because the workers' logs say why.
 */
final class ScratchHome implements AutoCloseable {

  private final Path path;
  private final Consumer<String> progress;
  private boolean keep = true;

  private ScratchHome(Path path, Consumer<String> progress) {
    this.path = path;
    this.progress = progress;
  }

  static ScratchHome create(Consumer<String> progress) throws IOException {
    return new ScratchHome(Files.createTempDirectory("genace-bench-"), progress);
  }

  Path resolve(String name) {
    return path.resolve(name);
  }

  /** Marks the bench as done: the directory goes when it closes. */
  <T> T succeeded(T result) {
    keep = false;
    return result;
  }

  @Override
  public void close() {
    if (keep) {
      progress.accept("the workers' logs are kept in " + path);
    } else {
      TemporaryFiles.deleteRecursively(path);
    }
  }
}
