package com.genace.activities.db;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.StringJoiner;

/**
 * A PostgreSQL location given as {@code postgresql://user:pass@host:port/db?params}, read as libpq
 * reads it, or as {@code jdbc:postgresql://...}, taken as it is. Credentials are kept apart from
 * the JDBC URL so that the URL can be logged; {@link #toString()} never shows the password.
 *
 * <p>libpq's reading: user, password, host, database and parameters are percent-decoded ({@code
 * %2B}, {@code %40}...; a {@code +} is a plus, not a space); the password is everything after the
 * user's first {@code :}; several hosts are separated by commas; an IPv6 address is in brackets.
 * libpq's parameters that the JDBC driver spells differently are renamed ({@link #LIBPQ_NAMES});
 * the others ({@code sslmode}, {@code sslrootcert}, {@code sslcert}, {@code sslkey}, {@code
 * options}, and the driver's own) pass through. {@code user}, {@code password}, {@code dbname},
 * {@code host} and {@code port} may be given as parameters too.
 */
public record DatabaseUrl(String jdbcUrl, Optional<String> user, Optional<String> password) {

  /** libpq's parameter names, and the JDBC driver's for the same setting. */
  static final Map<String, String> LIBPQ_NAMES =
      Map.of(
          "connect_timeout", "connectTimeout",
          "application_name", "ApplicationName",
          "target_session_attrs", "targetServerType",
          "gssencmode", "gssEncMode",
          "channel_binding", "channelBinding",
          "keepalives", "tcpKeepAlive");

  /** libpq's {@code target_session_attrs} values, and the driver's {@code targetServerType}. */
  private static final Map<String, String> TARGET_SERVER_TYPES =
      Map.of(
          "any", "any",
          "read-write", "primary",
          "primary", "primary",
          "read-only", "secondary",
          "standby", "secondary",
          "prefer-standby", "preferSecondary");

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
    String url = value.trim();
    if (url.startsWith("jdbc:postgresql://")) {
      return new DatabaseUrl(url, Optional.empty(), Optional.empty());
    }
    String rest;
    if (url.startsWith("postgresql://")) {
      rest = url.substring("postgresql://".length());
    } else if (url.startsWith("postgres://")) {
      rest = url.substring("postgres://".length());
    } else {
      throw new IllegalArgumentException(
          "database URL must start with postgresql:// or jdbc:postgresql://");
    }

    int query = rest.indexOf('?');
    Map<String, String> parameters =
        query < 0 ? new LinkedHashMap<>() : parameters(rest.substring(query + 1));
    String beforeQuery = query < 0 ? rest : rest.substring(0, query);
    int slash = beforeQuery.indexOf('/');
    String authority = slash < 0 ? beforeQuery : beforeQuery.substring(0, slash);
    String database = slash < 0 ? "" : decode(beforeQuery.substring(slash + 1), "database name");

    // The host part holds no '@', so the last one ends the user's part: a password with a raw '@'
    // reads as its writer meant (libpq asks for %40, which reads the same).
    int at = authority.lastIndexOf('@');
    Optional<String> user = Optional.empty();
    Optional<String> password = Optional.empty();
    if (at >= 0) {
      String userInfo = authority.substring(0, at);
      int colon = userInfo.indexOf(':');
      String name = colon < 0 ? userInfo : userInfo.substring(0, colon);
      if (!name.isEmpty()) {
        user = Optional.of(decode(name, "user name"));
      }
      if (colon >= 0) {
        password = Optional.of(decode(userInfo.substring(colon + 1), "password"));
      }
    }
    String hosts = at < 0 ? authority : authority.substring(at + 1);

    // Parameters name what the URL's parts may leave out, and win over them, as in libpq.
    String given = parameters.remove("user");
    if (given != null) {
      user = Optional.of(given);
    }
    given = parameters.remove("password");
    if (given != null) {
      password = Optional.of(given);
    }
    given = parameters.remove("dbname");
    if (given != null) {
      database = given;
    }
    String host = parameters.remove("host");
    String port = parameters.remove("port");
    if (hosts.isEmpty() && host != null) {
      hosts = host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host;
    }
    if (hosts.isEmpty()) {
      throw new IllegalArgumentException(
          "database URL has no host (a Unix socket is not reachable from Java: give a host)");
    }
    if (port != null && !hosts.contains(",")) {
      hosts = withoutPort(hosts) + ":" + port;
    }
    StringBuilder jdbc = new StringBuilder("jdbc:postgresql://").append(decode(hosts, "host"));
    jdbc.append('/').append(encode(database));
    Map<String, String> driver = driverParameters(parameters);
    if (!driver.isEmpty()) {
      jdbc.append('?').append(joined(driver));
    }
    return new DatabaseUrl(jdbc.toString(), user, password);
  }

  /** libpq's names (and values) as the JDBC driver reads them; the rest as they are. */
  private static Map<String, String> driverParameters(Map<String, String> libpq) {
    Map<String, String> driver = new LinkedHashMap<>();
    libpq.forEach(
        (name, value) -> {
          String renamed = LIBPQ_NAMES.getOrDefault(name, name);
          if (name.equals("target_session_attrs")) {
            value = TARGET_SERVER_TYPES.get(value);
            if (value == null) {
              throw new IllegalArgumentException(
                  "database URL parameter target_session_attrs must be one of "
                      + String.join(", ", TARGET_SERVER_TYPES.keySet()));
            }
          } else if (name.equals("keepalives")) {
            value = String.valueOf(!value.equals("0"));
          }
          driver.put(renamed, value);
        });
    return driver;
  }

  /** {@code db:5432} without its port; {@code [::1]:5432} without its, brackets kept. */
  private static String withoutPort(String host) {
    int end = host.startsWith("[") ? host.indexOf(']') + 1 : 0;
    int colon = host.indexOf(':', end);
    return colon < 0 ? host : host.substring(0, colon);
  }

  /** {@code a=1&b=2}, each name and value percent-decoded; a name given twice keeps the last. */
  private static Map<String, String> parameters(String query) {
    Map<String, String> parameters = new LinkedHashMap<>();
    for (String pair : query.split("&")) {
      if (pair.isEmpty()) {
        continue;
      }
      int equals = pair.indexOf('=');
      if (equals <= 0) {
        throw new IllegalArgumentException(
            "database URL parameter '" + visible(pair) + "' is not name=value");
      }
      String name = decode(pair.substring(0, equals), "parameter name");
      parameters.put(name, decode(pair.substring(equals + 1), "parameter " + name));
    }
    return parameters;
  }

  /** A name to show in an error: never a password's value. */
  private static String visible(String pair) {
    return pair.toLowerCase().startsWith("password") ? "password=***" : pair;
  }

  /** Percent-decoding as libpq does it: {@code %XX} only, strictly; {@code +} is a plus. */
  static String decode(String text, String what) {
    if (text.indexOf('%') < 0) {
      return text;
    }
    byte[] out = new byte[text.length()];
    int n = 0;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c != '%') {
        byte[] encoded = String.valueOf(c).getBytes(StandardCharsets.UTF_8);
        if (n + encoded.length > out.length) {
          out = java.util.Arrays.copyOf(out, out.length * 2 + encoded.length);
        }
        System.arraycopy(encoded, 0, out, n, encoded.length);
        n += encoded.length;
        continue;
      }
      if (i + 2 >= text.length()
          || Character.digit(text.charAt(i + 1), 16) < 0
          || Character.digit(text.charAt(i + 2), 16) < 0) {
        throw new IllegalArgumentException(
            "database URL has a malformed percent-encoding in its "
                + what
                + " (a literal % is written %25)");
      }
      out[n++] =
          (byte)
              (Character.digit(text.charAt(i + 1), 16) * 16
                  + Character.digit(text.charAt(i + 2), 16));
      i += 2;
    }
    return new String(out, 0, n, StandardCharsets.UTF_8);
  }

  /** A value as the JDBC driver decodes it from its URL (form decoding: a space is a plus). */
  private static String encode(String value) {
    return URLEncoder.encode(value, StandardCharsets.UTF_8);
  }

  /** A password given as a query parameter ({@code ?password=...}) is masked too. */
  @Override
  public String toString() {
    return jdbcUrl.replaceAll("(?i)([?&]password=)[^&]*", "$1***")
        + user.map(u -> " (user " + u + ")").orElse("");
  }

  static String joined(Map<String, String> parameters) {
    StringJoiner joined = new StringJoiner("&");
    parameters.forEach((name, value) -> joined.add(encode(name) + "=" + encode(value)));
    return joined.toString();
  }
}
