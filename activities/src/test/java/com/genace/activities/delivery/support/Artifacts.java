package com.genace.activities.delivery.support;

import com.genace.activities.delivery.ArtifactContent;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.SplittableRandom;

/** Test content: random bytes, their digest, and sources that fail part way. */
public final class Artifacts {

  private Artifacts() {}

  public static byte[] random(int size, long seed) {
    byte[] bytes = new byte[size];
    SplittableRandom random = new SplittableRandom(seed);
    for (int i = 0; i < size; i++) {
      bytes[i] = (byte) random.nextInt(256);
    }
    return bytes;
  }

  public static String sha256(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK provides SHA-256", e);
    }
  }

  /** Content whose source is {@code bytes}, announced with their true size and digest. */
  public static ArtifactContent content(String key, byte[] bytes) {
    return content(key, new ByteArrayInputStream(bytes), bytes.length, sha256(bytes));
  }

  public static ArtifactContent content(String key, InputStream source, long size, String sha256) {
    return new ArtifactContent(source, key, size, sha256, "image/png", null);
  }

  /** Serves {@code bytes} up to {@code failAt}, then fails as a dropped connection would. */
  public static InputStream failingAfter(byte[] bytes, int failAt) {
    return new InputStream() {
      private int position;

      @Override
      public int read() throws IOException {
        byte[] one = new byte[1];
        return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
      }

      @Override
      public int read(byte[] buffer, int offset, int length) throws IOException {
        if (position >= failAt) {
          throw new IOException("connection reset by peer");
        }
        int n = Math.min(length, Math.min(failAt, bytes.length) - position);
        System.arraycopy(bytes, position, buffer, offset, n);
        position += n;
        return n;
      }
    };
  }
}
