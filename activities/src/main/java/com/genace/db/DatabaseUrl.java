package com.genace.db;

import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * A PostgreSQL location given as {@code postgresql://user:pass@host:port/db?params} (libpq style)
 * or {@code jdbc:postgresql://...}. Credentials are kept apart from the JDBC URL so that the URL
 * can be logged; {@link #toString()} never shows the password.
 */
public record DatabaseUrl(String jdbcUrl, Optional<String> user, Optional<String> password) {

  public DatabaseUrl {
    if (jdbcUrl == null || !jdbcUrl.startsWith("jdbc:postgresql://")) {
      throw new IllegalArgumentException("not a PostgreSQL JDBC URL");
    }
  }

  /**
   * Parses a database URL.
   *
   * @throws IllegalArgumentException with a message that names what is wrong, never the password
   */
  public static DatabaseUrl parse(String value) {
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException("database URL is empty");
    }
    String trimmed = value.trim();
    if (trimmed.startsWith("jdbc:postgresql://")) {
      return new DatabaseUrl(trimmed, Optional.empty(), Optional.empty());
    }
    if (!trimmed.startsWith("postgresql://") && !trimmed.startsWith("postgres://")) {
      throw new IllegalArgumentException(
          "database URL must start with postgresql:// or jdbc:postgresql://");
    }
    URI uri;
    try {
      uri = new URI(trimmed);
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException("database URL is malformed (" + e.getReason() + ")");
    }
    if (uri.getHost() == null || uri.getHost().isBlank()) {
      throw new IllegalArgumentException("database URL has no host");
    }
    String path = uri.getRawPath() == null ? "" : uri.getRawPath();
    StringBuilder jdbc = new StringBuilder("jdbc:postgresql://").append(uri.getHost());
    if (uri.getPort() != -1) {
      jdbc.append(':').append(uri.getPort());
    }
    jdbc.append(path.isEmpty() ? "/" : path);
    if (uri.getRawQuery() != null) {
      jdbc.append('?').append(uri.getRawQuery());
    }
    Optional<String> user = Optional.empty();
    Optional<String> password = Optional.empty();
    String userInfo = uri.getRawUserInfo();
    if (userInfo != null && !userInfo.isEmpty()) {
      int colon = userInfo.indexOf(':');
      user = Optional.of(decode(colon < 0 ? userInfo : userInfo.substring(0, colon)));
      if (colon >= 0) {
        password = Optional.of(decode(userInfo.substring(colon + 1)));
      }
    }
    return new DatabaseUrl(jdbc.toString(), user, password);
  }

  private static String decode(String part) {
    return URLDecoder.decode(part, StandardCharsets.UTF_8);
  }

  /** A password given as a query parameter ({@code ?password=...}) is masked too. */
  @Override
  public String toString() {
    return jdbcUrl.replaceAll("(?i)([?&]password=)[^&]*", "$1***")
        + user.map(u -> " (user " + u + ")").orElse("");
  }
}
