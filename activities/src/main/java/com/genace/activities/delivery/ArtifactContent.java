package com.genace.activities.delivery;

import java.io.Closeable;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Objects;
import java.util.Optional;
import java.util.function.LongConsumer;

/**
 * One artifact's bytes as they arrive, and what they must add up to. The {@link #stream()} checks
 * them as they pass: reading beyond the declared size, or reaching the end with another size or
 * SHA-256, throws {@link ArtifactMismatchException}. A store that reads the stream to its end
 * before it publishes an object therefore never publishes wrong or partial bytes.
 */
public final class ArtifactContent implements Closeable {

  /** How often, in bytes read, the progress listener hears of the transfer. */
  static final long PROGRESS_STEP = 1024 * 1024;

  private final String key;
  private final long bytes;
  private final String sha256;
  private final String contentType;
  private final Checked stream;
  private final LongConsumer progress;
  private long uploaded;
  private RuntimeException progressFailure;

  /**
   * @param source the bytes; closed with this content
   * @param key the key they are stored under, for messages
   * @param progress told the number of bytes moved so far, every {@value #PROGRESS_STEP} bytes:
   *     read from {@code source}, and, while a store uploads them, sent on ({@link #uploading})
   */
  public ArtifactContent(
      InputStream source,
      String key,
      long bytes,
      String sha256,
      String contentType,
      LongConsumer progress) {
    this.key = Objects.requireNonNull(key, "key");
    this.bytes = bytes;
    this.sha256 = Objects.requireNonNull(sha256, "sha256");
    this.contentType = Objects.requireNonNull(contentType, "contentType");
    this.progress = progress == null ? n -> {} : progress;
    this.stream = new Checked(Objects.requireNonNull(source, "source"), this.progress);
  }

  public long bytes() {
    return bytes;
  }

  public String sha256() {
    return sha256;
  }

  public String contentType() {
    return contentType;
  }

  /** The checking stream: throws {@link ArtifactMismatchException} as described above. */
  public InputStream stream() {
    return stream;
  }

  /**
   * {@code body}, a request body a store sends these bytes in (a part, the whole object), telling
   * the progress listener as the store's client reads it to send it: uploading moves the transfer
   * on as downloading does, so a slow upload keeps the delivery's heartbeat and lease. A client
   * that reads a body twice (to sign it, to resend it) reports it twice. A failure of the listener
   * (a lease that could not be renewed) stops the read and is kept for {@link #progressFailure}: a
   * client that wraps it in its own exception must not turn it into a storage failure.
   */
  public InputStream uploading(InputStream body) {
    return new FilterInputStream(body) {
      private long unreported;

      @Override
      public int read() throws IOException {
        int b = super.read();
        if (b >= 0) {
          sent(1);
        }
        return b;
      }

      @Override
      public int read(byte[] buffer, int offset, int length) throws IOException {
        int n = super.read(buffer, offset, length);
        if (n > 0) {
          sent(n);
        }
        return n;
      }

      private void sent(int n) {
        unreported += n;
        if (unreported < PROGRESS_STEP) {
          return;
        }
        unreported = 0;
        synchronized (ArtifactContent.this) {
          uploaded += PROGRESS_STEP;
          try {
            progress.accept(uploaded);
          } catch (RuntimeException e) {
            progressFailure = e;
            throw e;
          }
        }
      }
    };
  }

  /** What the progress listener threw while an upload was read ({@link #uploading}), if it did. */
  public synchronized Optional<RuntimeException> progressFailure() {
    return Optional.ofNullable(progressFailure);
  }

  /**
   * Reads once more, expecting the end: the check at the end runs, and a byte beyond the declared
   * size fails. For stores that read exactly {@link #bytes()} and would otherwise stop short of it.
   */
  public void requireEnd() throws IOException {
    if (stream.read() != -1) {
      throw new IllegalStateException(key + ": requireEnd() called before all bytes were read");
    }
  }

  @Override
  public void close() {
    try {
      stream.close();
    } catch (IOException e) {
      // Nothing of the artifact depends on closing its source; the bytes were checked or refused.
    }
  }

  private final class Checked extends FilterInputStream {
    private final MessageDigest digest = sha256Digest();
    private final LongConsumer progress;
    private long read;
    private long reported;
    private boolean verified;

    Checked(InputStream source, LongConsumer progress) {
      super(source);
      this.progress = progress == null ? n -> {} : progress;
    }

    @Override
    public int read() throws IOException {
      int b = super.read();
      if (b < 0) {
        atEnd();
      } else {
        digest.update((byte) b);
        counted(1);
      }
      return b;
    }

    @Override
    public int read(byte[] buffer, int offset, int length) throws IOException {
      int n = super.read(buffer, offset, length);
      if (n < 0) {
        atEnd();
      } else {
        digest.update(buffer, offset, n);
        counted(n);
      }
      return n;
    }

    /** Skipping would leave bytes unchecked: skipped bytes are read. */
    @Override
    public long skip(long n) throws IOException {
      return readNBytes((int) Math.min(n, 8192)).length;
    }

    @Override
    public boolean markSupported() {
      return false;
    }

    private void counted(int n) throws ArtifactMismatchException {
      read += n;
      if (read > bytes) {
        throw new ArtifactMismatchException(
            key + ": more than the " + bytes + " bytes the snapshot announced arrived");
      }
      if (read - reported >= PROGRESS_STEP) {
        reported = read;
        progress.accept(read);
      }
    }

    private void atEnd() throws ArtifactMismatchException {
      if (verified) {
        return;
      }
      String actual = HexFormat.of().formatHex(digest.digest());
      if (read != bytes || !actual.equalsIgnoreCase(sha256)) {
        throw new ArtifactMismatchException(
            key
                + ": expected "
                + bytes
                + " bytes with sha256 "
                + sha256
                + ", got "
                + read
                + " bytes with sha256 "
                + actual);
      }
      verified = true;
    }
  }

  static MessageDigest sha256Digest() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK provides SHA-256", e);
    }
  }
}
