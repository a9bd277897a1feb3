package com.genace.activities.delivery;

import static com.genace.activities.delivery.support.Artifacts.content;
import static com.genace.activities.delivery.support.Artifacts.failingAfter;
import static com.genace.activities.delivery.support.Artifacts.random;
import static com.genace.activities.delivery.support.Artifacts.sha256;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.genace.activities.testing.S3Server;
import java.io.ByteArrayInputStream;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/** The S3 store against a real S3 server (see {@link S3Server}); no client is mocked. */
class S3ArtifactStoreTest extends ArtifactStoreContract {

  private static final int PART = S3ArtifactStore.MIN_PART_SIZE;

  private final S3Server server = S3Server.get();
  private final S3Client admin = server.client();
  private final String bucket = server.newBucket(admin);

  @AfterEach
  void closeClient() {
    admin.close();
  }

  @Override
  ArtifactStore store() {
    return new S3ArtifactStore(server.client(), bucket, "tenant/a", PART);
  }

  @Override
  byte[] readBack(ArtifactStore store, String key) {
    return admin.getObjectAsBytes(b -> b.bucket(bucket).key("tenant/a/" + key)).asByteArray();
  }

  /** Two whole parts and a short last one. */
  @Override
  int largeSize() {
    return 2 * PART + 12345;
  }

  @Test
  void objects_live_under_the_prefix_and_are_located_by_s3_uri() {
    try (ArtifactStore store = store()) {
      store.put(KEY, content(KEY, random(10, 1)));

      assertThat(store.locate(KEY)).isEqualTo("s3://" + bucket + "/tenant/a/" + KEY);
      assertThat(objectKeys()).containsExactly("tenant/a/" + KEY);
    }
  }

  @Test
  void an_object_without_our_digest_is_not_held_and_is_replaced() {
    byte[] bytes = random(1000, 2);
    admin.putObject(b -> b.bucket(bucket).key("tenant/a/" + KEY), RequestBody.fromBytes(bytes));
    try (ArtifactStore store = store()) {
      assertThat(store.holds(KEY, bytes.length, sha256(bytes))).isFalse();

      store.put(KEY, content(KEY, bytes));

      assertThat(store.holds(KEY, bytes.length, sha256(bytes))).isTrue();
    }
  }

  @Test
  void a_refused_multipart_upload_is_aborted_not_left_behind() {
    byte[] bytes = random(largeSize(), 3);
    try (ArtifactStore store = store()) {
      assertThatThrownBy(
              () ->
                  store.put(
                      KEY,
                      content(KEY, new ByteArrayInputStream(bytes), bytes.length, "1".repeat(64))))
          .hasRootCauseInstanceOf(ArtifactMismatchException.class);
      assertThatThrownBy(
              () ->
                  store.put(
                      KEY,
                      content(KEY, failingAfter(bytes, PART + 10), bytes.length, sha256(bytes))))
          .isInstanceOf(ArtifactStoreException.class);
    }

    assertThat(admin.listMultipartUploads(b -> b.bucket(bucket)).uploads()).isEmpty();
    assertThat(objectKeys()).isEmpty();
  }

  @Test
  void a_missing_bucket_fails_the_check_with_one_line() {
    try (ArtifactStore store = new S3ArtifactStore(server.client(), "no-such-bucket", "", PART)) {
      assertThatThrownBy(store::check)
          .isInstanceOf(ArtifactStoreException.class)
          .hasMessageStartingWith("bucket no-such-bucket does not exist (HTTP 404")
          .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    }
  }

  @Test
  void wrong_credentials_fail_the_check_without_showing_the_secret() {
    try (ArtifactStore store =
        new S3ArtifactStore(server.client("wrong-secret-value"), bucket, "", PART)) {
      assertThatThrownBy(store::check)
          .isInstanceOf(ArtifactStoreException.class)
          .hasMessageStartingWith("access denied to bucket " + bucket + " (HTTP 403")
          .hasMessageContaining("AWS_ACCESS_KEY_ID")
          .satisfies(e -> assertThat(e.getMessage()).doesNotContain("wrong-secret-value"));
    }
  }

  @Test
  void the_store_opens_from_the_workers_environment() {
    Map<String, String> env = new HashMap<>(server.environment());
    env.put(ArtifactLocation.URL_VARIABLE, "s3://" + bucket + "/from-env/");
    ArtifactLocation location = ArtifactLocation.fromEnvironment(env);
    byte[] bytes = random(100, 4);

    try (ArtifactStore store = ArtifactStores.open(location, env)) {
      assertThat(location.problem(store)).isEmpty();
      store.put(KEY, content(KEY, bytes));
      assertThat(store.locate(KEY)).isEqualTo("s3://" + bucket + "/from-env/" + KEY);
    }
    assertThat(admin.getObjectAsBytes(b -> b.bucket(bucket).key("from-env/" + KEY)).asByteArray())
        .isEqualTo(bytes);
  }

  @Test
  void a_missing_bucket_at_start_is_one_line_naming_the_variable() {
    Map<String, String> env = new HashMap<>(server.environment());
    env.put(ArtifactLocation.URL_VARIABLE, "s3://absent-bucket/x");
    ArtifactLocation location = ArtifactLocation.fromEnvironment(env);

    try (ArtifactStore store = ArtifactStores.open(location, env)) {
      assertThat(location.problem(store))
          .hasValueSatisfying(
              problem ->
                  assertThat(problem)
                      .startsWith(
                          "GENACE_ARTIFACT_URL=s3://absent-bucket/x: bucket absent-bucket does not"
                              + " exist"));
    }
  }

  /** The bucket's objects; S3Proxy's file system store also lists its directories, left out. */
  private java.util.List<String> objectKeys() {
    return admin.listObjectsV2(b -> b.bucket(bucket)).contents().stream()
        .map(o -> o.key())
        .filter(key -> !key.endsWith("/"))
        .toList();
  }
}
