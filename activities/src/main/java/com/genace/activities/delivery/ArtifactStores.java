package com.genace.activities.delivery;

import java.net.URI;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.regions.providers.AwsProfileRegionProvider;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;

/**
 * Opens the store an {@link ArtifactLocation} names. An S3 client takes the AWS SDK's standard
 * settings: credentials from {@code AWS_ACCESS_KEY_ID} / {@code AWS_SECRET_ACCESS_KEY} (/ {@code
 * AWS_SESSION_TOKEN}) or else its default chain, {@code AWS_REGION} or {@code AWS_DEFAULT_REGION}
 * (else the profile's region, else {@code us-east-1} with cross-region access), and {@code
 * AWS_ENDPOINT_URL_S3} or {@code AWS_ENDPOINT_URL} for an S3-compatible server, which then gets
 * path-style addressing (MinIO, R2 and GCS all accept it; virtual hosts would need DNS per bucket).
 * Its waits are bounded by {@link S3Timeouts}.
 */
public final class ArtifactStores {

  static final Region FALLBACK_REGION = Region.US_EAST_1;

  private ArtifactStores() {}

  /**
   * @throws IllegalArgumentException naming the variable when a setting is malformed
   */
  public static ArtifactStore open(ArtifactLocation location, Map<String, String> env) {
    return open(location, env, S3Timeouts.DEFAULT);
  }

  /**
   * @param timeouts how long an S3 store waits for S3
   * @throws IllegalArgumentException naming the variable when a setting is malformed
   */
  public static ArtifactStore open(
      ArtifactLocation location, Map<String, String> env, S3Timeouts timeouts) {
    if (!location.isS3()) {
      return new LocalDirectoryArtifactStore(location.directory());
    }
    return new S3ArtifactStore(
        s3Client(env, timeouts),
        location.bucket(),
        location.prefix(),
        S3ArtifactStore.DEFAULT_PART_SIZE);
  }

  static S3Client s3Client(Map<String, String> env) {
    return s3Client(env, S3Timeouts.DEFAULT);
  }

  static S3Client s3Client(Map<String, String> env, S3Timeouts timeouts) {
    S3ClientBuilder builder =
        S3Client.builder()
            .credentialsProvider(credentials(env))
            .region(region(env))
            .httpClientBuilder(
                Apache5HttpClient.builder()
                    .socketTimeout(timeouts.socketTimeout())
                    .connectionTimeout(timeouts.connectTimeout()))
            .overrideConfiguration(
                o ->
                    o.apiCallAttemptTimeout(timeouts.requestTimeout())
                        .apiCallTimeout(timeouts.callTimeout()));
    Optional<URI> endpoint =
        endpoint(env, "AWS_ENDPOINT_URL_S3").or(() -> endpoint(env, "AWS_ENDPOINT_URL"));
    if (endpoint.isPresent()) {
      builder.endpointOverride(endpoint.get()).forcePathStyle(true);
      if (!env.containsKey("AWS_REQUEST_CHECKSUM_CALCULATION")) {
        // The SDK's default CRC checksum headers are refused by many S3-compatible servers (GCS,
        // S3Proxy, older MinIO): send them only where an operation requires them. Our own check
        // of size and SHA-256 decides whether an object is published (ArtifactContent).
        builder
            .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
            .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED);
      }
    } else {
      builder.crossRegionAccessEnabled(true);
    }
    return builder.build();
  }

  /**
   * The keys in the environment given, as the SDK's chain would read them from the process's;
   * otherwise that chain (system properties, web identity, profiles, container and instance roles).
   */
  private static AwsCredentialsProvider credentials(Map<String, String> env) {
    String id = env.get("AWS_ACCESS_KEY_ID");
    String secret = env.get("AWS_SECRET_ACCESS_KEY");
    if (id == null || id.isBlank() || secret == null || secret.isBlank()) {
      return DefaultCredentialsProvider.builder().build();
    }
    String token = env.get("AWS_SESSION_TOKEN");
    return StaticCredentialsProvider.create(
        token == null || token.isBlank()
            ? AwsBasicCredentials.create(id.trim(), secret.trim())
            : AwsSessionCredentials.create(id.trim(), secret.trim(), token.trim()));
  }

  private static Region region(Map<String, String> env) {
    for (String name : new String[] {"AWS_REGION", "AWS_DEFAULT_REGION"}) {
      String value = env.get(name);
      if (value != null && !value.isBlank()) {
        return Region.of(value.trim());
      }
    }
    try {
      // Not the SDK's whole chain: its last link asks the EC2 metadata service, slowly, anywhere.
      return new AwsProfileRegionProvider().getRegion();
    } catch (SdkClientException e) {
      return FALLBACK_REGION;
    }
  }

  private static Optional<URI> endpoint(Map<String, String> env, String name) {
    String value = env.get(name);
    if (value == null || value.isBlank()) {
      return Optional.empty();
    }
    try {
      URI uri = URI.create(value.trim());
      if (("http".equals(uri.getScheme()) || "https".equals(uri.getScheme()))
          && uri.getHost() != null) {
        return Optional.of(uri);
      }
    } catch (IllegalArgumentException e) {
      // reported below
    }
    throw new IllegalArgumentException(name + " must be an http(s) URL");
  }
}
