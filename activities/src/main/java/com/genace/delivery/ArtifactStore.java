package com.genace.delivery;

import java.nio.file.Path;

/** Where delivered artifacts live: the application's own storage. */
public interface ArtifactStore {

  /** True when an object exists under {@code key} with exactly this size and SHA-256 (hex). */
  boolean holds(String key, long bytes, String sha256);

  /** A fresh local file to download into before {@link #put}. */
  Path stagingFile(String key);

  /**
   * Stores the staged file under {@code key}, atomically: readers see the previous object or the
   * new one, never a partial copy. The staged file is consumed.
   */
  void put(String key, Path staged);

  /** A human-readable location for the key (a path or URL), for manifests and logs. */
  String locate(String key);
}
