package com.genace.activities.delivery;

/**
 * Where delivered artifacts live: the application's own storage. Implementations are thread-safe;
 * every method may be retried.
 */
public interface ArtifactStore extends AutoCloseable {

  /**
   * Proves the store usable without transferring an artifact: bounded in time, cheap enough for a
   * readiness check.
   *
   * @throws ArtifactStoreException with a one-line cause (missing bucket, denied access,
   *     unreachable endpoint, unwritable directory)
   */
  void check();

  /**
   * True when a complete object exists under {@code key} with exactly this size and SHA-256 (hex).
   *
   * @throws ArtifactStoreException when the store cannot tell
   */
  boolean holds(String key, long bytes, String sha256);

  /**
   * Reads {@code content} to its end and stores it under {@code key}. The object appears only
   * complete and checked (see {@link ArtifactContent}); on any failure, including a mismatch, the
   * key keeps what it held before.
   *
   * @throws ArtifactStoreException on any failure; a mismatch has an {@link
   *     ArtifactMismatchException} as its cause
   */
  void put(String key, ArtifactContent content);

  /** The object's address for manifests: {@code file:///...} or {@code s3://bucket/key}. */
  String locate(String key);

  /** Releases connections; the default holds none. */
  @Override
  default void close() {}
}
