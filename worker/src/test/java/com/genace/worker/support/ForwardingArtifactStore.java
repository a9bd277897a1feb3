package com.genace.worker.support;

import com.genace.activities.delivery.ArtifactContent;
import com.genace.activities.delivery.ArtifactStore;

/**
 * A real artifact store with a fault put in front of its copies: tests override {@link #put} (hold
 * it, fail it, crash after it) and call {@code super.put} for the copy itself.
 */
public abstract class ForwardingArtifactStore implements ArtifactStore {

  private final ArtifactStore inner;

  protected ForwardingArtifactStore(ArtifactStore inner) {
    this.inner = inner;
  }

  @Override
  public void check() {
    inner.check();
  }

  @Override
  public boolean holds(String key, long bytes, String sha256) {
    return inner.holds(key, bytes, sha256);
  }

  @Override
  public void put(String key, ArtifactContent content) {
    inner.put(key, content);
  }

  @Override
  public String locate(String key) {
    return inner.locate(key);
  }

  @Override
  public void close() {
    inner.close();
  }
}
