package com.genace.activities.delivery;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * An artifact store in an S3 bucket (AWS S3 or any S3-compatible server), under a key prefix.
 *
 * <ol>
 *   <li>Each object carries its SHA-256 as user metadata ({@code x-amz-meta-sha256}), set when the
 *       upload starts and visible only once it completes; {@link #holds} compares it and the size.
 *   <li>Up to {@code partSize} bytes: the content is read into memory, checked to its end, then
 *       sent in one {@code PutObject}.
 *   <li>Larger: a multipart upload, one part in memory at a time; the end of the content is checked
 *       before {@code CompleteMultipartUpload}, and any failure aborts the upload. S3 shows no
 *       object until the upload completes, so a partial upload is never taken for a complete one.
 * </ol>
 *
 * <p>The bytes of every request body are reported as they are read to be sent ({@link
 * ArtifactContent#uploading}): a slow upload keeps the delivery's heartbeat and lease as a slow
 * download does.
 *
 * <p>Heap per upload in progress is at most one part ({@value #DEFAULT_PART_SIZE} bytes by
 * default), whatever the artifact's size.
 */
public final class S3ArtifactStore implements ArtifactStore {

  /** 8 MiB: above S3's 5 MiB minimum part, and 10,000 parts hold 80 GiB. */
  public static final int DEFAULT_PART_SIZE = 8 * 1024 * 1024;

  /** S3's smallest part but the last. */
  public static final int MIN_PART_SIZE = 5 * 1024 * 1024;

  static final String SHA256_METADATA = "sha256";
  static final Duration CHECK_TIMEOUT = Duration.ofSeconds(5);

  private final S3Client s3;
  private final String bucket;
  private final String prefix;
  private final int partSize;

  /**
   * @param s3 closed with this store
   * @param prefix the key prefix, without leading or trailing slashes; empty for none
   * @param partSize bytes per part of a multipart upload, at least {@value #MIN_PART_SIZE}
   */
  public S3ArtifactStore(S3Client s3, String bucket, String prefix, int partSize) {
    this.s3 = Objects.requireNonNull(s3, "s3");
    this.bucket = Objects.requireNonNull(bucket, "bucket");
    this.prefix = Objects.requireNonNull(prefix, "prefix");
    if (partSize < MIN_PART_SIZE) {
      throw new IllegalArgumentException("partSize must be at least " + MIN_PART_SIZE);
    }
    this.partSize = partSize;
  }

  /** HEAD of the bucket: proves the endpoint, the credentials and the bucket in one request. */
  @Override
  public void check() {
    try {
      s3.headBucket(
          b -> b.bucket(bucket).overrideConfiguration(o -> o.apiCallTimeout(CHECK_TIMEOUT)));
    } catch (SdkException e) {
      throw new ArtifactStoreException(S3Problems.describe(e, bucket), e);
    }
  }

  @Override
  public boolean holds(String key, long bytes, String sha256) {
    HeadObjectResponse head;
    try {
      head = s3.headObject(b -> b.bucket(bucket).key(objectKey(key)));
    } catch (NoSuchKeyException e) {
      return false;
    } catch (S3Exception e) {
      if (e.statusCode() == 404) {
        return false;
      }
      throw failure("could not inspect " + locate(key), e);
    } catch (SdkException e) {
      throw failure("could not inspect " + locate(key), e);
    }
    String stored = head.metadata().get(SHA256_METADATA);
    return head.contentLength() != null
        && head.contentLength() == bytes
        && stored != null
        && stored.equalsIgnoreCase(sha256);
  }

  @Override
  public void put(String key, ArtifactContent content) {
    try {
      if (content.bytes() <= partSize) {
        putWhole(objectKey(key), content);
      } else {
        putInParts(objectKey(key), content);
      }
    } catch (IOException e) {
      throw new ArtifactStoreException("could not store " + locate(key) + ": " + e.getMessage(), e);
    } catch (SdkException e) {
      // A lease lost while the upload moved is that failure, whatever the SDK wrapped it in.
      Optional<RuntimeException> lost = content.progressFailure();
      if (lost.isPresent()) {
        lost.get().addSuppressed(e);
        throw lost.get();
      }
      throw failure("could not store " + locate(key), e);
    }
  }

  @Override
  public String locate(String key) {
    return "s3://" + bucket + "/" + objectKey(key);
  }

  @Override
  public void close() {
    s3.close();
  }

  private void putWhole(String objectKey, ArtifactContent content) throws IOException {
    byte[] bytes = content.stream().readNBytes((int) content.bytes());
    content.requireEnd();
    s3.putObject(
        b ->
            b.bucket(bucket)
                .key(objectKey)
                .contentType(content.contentType())
                .contentLength((long) bytes.length)
                .metadata(metadata(content)),
        RequestBody.fromContentProvider(
            () -> content.uploading(new ByteArrayInputStream(bytes)),
            bytes.length,
            content.contentType()));
  }

  private void putInParts(String objectKey, ArtifactContent content) throws IOException {
    String uploadId =
        s3.createMultipartUpload(
                b ->
                    b.bucket(bucket)
                        .key(objectKey)
                        .contentType(content.contentType())
                        .metadata(metadata(content)))
            .uploadId();
    boolean completed = false;
    try {
      List<CompletedPart> parts = new ArrayList<>();
      byte[] buffer = new byte[partSize];
      InputStream in = content.stream();
      long remaining = content.bytes();
      for (int number = 1; remaining > 0; number++) {
        int length = (int) Math.min(partSize, remaining);
        // Short only at the end of the stream, where the check has already thrown.
        int read = in.readNBytes(buffer, 0, length);
        remaining -= read;
        int partNumber = number;
        String etag =
            s3.uploadPart(
                    b ->
                        b.bucket(bucket)
                            .key(objectKey)
                            .uploadId(uploadId)
                            .partNumber(partNumber)
                            .contentLength((long) read),
                    // The SDK may resend a part: it reads the buffer again, never the source.
                    RequestBody.fromContentProvider(
                        () -> content.uploading(new ByteArrayInputStream(buffer, 0, read)),
                        read,
                        content.contentType()))
                .eTag();
        parts.add(CompletedPart.builder().partNumber(partNumber).eTag(etag).build());
      }
      content.requireEnd();
      s3.completeMultipartUpload(
          b ->
              b.bucket(bucket)
                  .key(objectKey)
                  .uploadId(uploadId)
                  .multipartUpload(m -> m.parts(parts)));
      completed = true;
    } finally {
      if (!completed) {
        abortQuietly(objectKey, uploadId);
      }
    }
  }

  /**
   * Best effort: an upload left behind is invisible and never read, and a bucket lifecycle rule
   * removes it (docs/artifact-storage.md). Runs even when the thread was interrupted.
   */
  private void abortQuietly(String objectKey, String uploadId) {
    boolean interrupted = Thread.interrupted();
    try {
      s3.abortMultipartUpload(b -> b.bucket(bucket).key(objectKey).uploadId(uploadId));
    } catch (SdkException e) {
      // see above
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private static Map<String, String> metadata(ArtifactContent content) {
    return Map.of(SHA256_METADATA, content.sha256().toLowerCase(java.util.Locale.ROOT));
  }

  private String objectKey(String key) {
    if (key.isBlank() || key.startsWith("/")) {
      throw new IllegalArgumentException("artifact key must be relative: " + key);
    }
    return prefix.isEmpty() ? key : prefix + "/" + key;
  }

  private ArtifactStoreException failure(String what, SdkException e) {
    return new ArtifactStoreException(what + ": " + S3Problems.describe(e, bucket), e);
  }
}
