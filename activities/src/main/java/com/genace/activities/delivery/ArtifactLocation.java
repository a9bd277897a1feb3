package com.genace.activities.delivery;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/**
 * Where artifacts go, as the environment says: {@code GENACE_ARTIFACT_URL} ({@code file:///path} or
 * {@code s3://bucket/prefix}), or {@code GENACE_ARTIFACT_DIR} (a directory, the same as a {@code
 * file://} URL), or {@value #DEFAULT_DIR} in the working directory.
 *
 * @param uri {@code file:} with an absolute path, or {@code s3://bucket[/prefix]}
 * @param variable the variable it came from, for messages
 */
public record ArtifactLocation(URI uri, String variable) {

  public static final String URL_VARIABLE = "GENACE_ARTIFACT_URL";
  public static final String DIR_VARIABLE = "GENACE_ARTIFACT_DIR";
  public static final String DEFAULT_DIR = "artifacts";

  /**
   * @throws IllegalArgumentException naming the variable when it is malformed, or when both are set
   */
  public static ArtifactLocation fromEnvironment(Map<String, String> env) {
    Optional<String> url = text(env, URL_VARIABLE);
    Optional<String> dir = text(env, DIR_VARIABLE);
    if (url.isPresent() && dir.isPresent()) {
      throw new IllegalArgumentException(
          "set " + URL_VARIABLE + " or " + DIR_VARIABLE + ", not both");
    }
    if (url.isPresent()) {
      return new ArtifactLocation(parseUrl(url.get()), URL_VARIABLE);
    }
    Path path = Path.of(dir.orElse(DEFAULT_DIR)).toAbsolutePath().normalize();
    return new ArtifactLocation(path.toUri(), DIR_VARIABLE);
  }

  public boolean isS3() {
    return "s3".equals(uri.getScheme());
  }

  /** The directory of a {@code file:} location. */
  public Path directory() {
    if (isS3()) {
      throw new IllegalStateException(uri + " is not a directory");
    }
    return Path.of(uri);
  }

  /** The bucket of an {@code s3:} location. */
  public String bucket() {
    return uri.getAuthority();
  }

  /** The key prefix of an {@code s3:} location, without slashes at either end; maybe empty. */
  public String prefix() {
    String path = uri.getPath() == null ? "" : uri.getPath();
    return path.replaceAll("^/+", "").replaceAll("/+$", "");
  }

  /** Empty when the store answers; otherwise one line naming the variable. */
  public Optional<String> problem(ArtifactStore store) {
    try {
      store.check();
      return Optional.empty();
    } catch (ArtifactStoreException e) {
      return Optional.of(this + ": " + e.getMessage());
    }
  }

  @Override
  public String toString() {
    return variable + "=" + uri;
  }

  private static URI parseUrl(String value) {
    String usage = URL_VARIABLE + " must be file:///absolute/path or s3://bucket/prefix";
    URI uri;
    try {
      uri = new URI(value);
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException(usage);
    }
    if ("file".equals(uri.getScheme())) {
      if (uri.getAuthority() != null || uri.getPath() == null || !uri.getPath().startsWith("/")) {
        throw new IllegalArgumentException(usage);
      }
      return Path.of(uri).normalize().toUri();
    }
    if ("s3".equals(uri.getScheme())) {
      String bucket = uri.getAuthority();
      if (bucket == null || !bucket.matches("[a-z0-9][a-z0-9._-]{1,61}[a-z0-9]")) {
        throw new IllegalArgumentException(
            URL_VARIABLE + " names no valid bucket (s3://bucket/prefix, bucket in lower case)");
      }
      if (uri.getQuery() != null || uri.getFragment() != null) {
        throw new IllegalArgumentException(usage);
      }
      return uri;
    }
    throw new IllegalArgumentException(usage);
  }

  private static Optional<String> text(Map<String, String> env, String name) {
    return Optional.ofNullable(env.get(name)).map(String::trim).filter(v -> !v.isEmpty());
  }
}
