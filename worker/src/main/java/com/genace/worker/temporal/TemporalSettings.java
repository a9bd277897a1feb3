package com.genace.worker.temporal;

import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Where Temporal is, from the environment, with the Temporal CLI's variable names: the one parser
 * of {@code TEMPORAL_*}, shared by the worker and every {@code ./genace} command. {@link
 * #toString()} never shows the API key.
 *
 * @param address {@code host:port} of the frontend
 * @param namespace the namespace operations run in
 * @param tls whether to connect with TLS (implied by an API key)
 * @param apiKey a bearer key for Temporal Cloud or a proxy, if any
 */
public record TemporalSettings(
    String address, String namespace, boolean tls, Optional<String> apiKey) {

  public static final String ADDRESS = "TEMPORAL_ADDRESS";
  public static final String NAMESPACE = "TEMPORAL_NAMESPACE";
  public static final String TLS = "TEMPORAL_TLS";
  public static final String API_KEY = "TEMPORAL_API_KEY";

  public static final String DEFAULT_ADDRESS = "127.0.0.1:7233";
  public static final String DEFAULT_NAMESPACE = "default";

  /** The server's default {@code limit.maxIDLength}: namespaces, identities, queue names. */
  public static final int MAX_ID_LENGTH = 1000;

  /** Local settings without TLS or key, e.g. for a test server. */
  public static TemporalSettings local(String address) {
    return new TemporalSettings(address, DEFAULT_NAMESPACE, false, Optional.empty());
  }

  /**
   * Reads the {@code TEMPORAL_*} variables; blank counts as unset.
   *
   * @throws IllegalArgumentException naming the variable that is malformed
   */
  public static TemporalSettings fromEnvironment(Map<String, String> env) {
    String address = value(env, ADDRESS).orElse(DEFAULT_ADDRESS);
    if (!address.matches("[A-Za-z0-9.\\-\\[\\]:]+:\\d{1,5}")) {
      throw new IllegalArgumentException(
          ADDRESS + " must be host:port (for example " + DEFAULT_ADDRESS + ")");
    }
    String namespace = value(env, NAMESPACE).orElse(DEFAULT_NAMESPACE);
    if (namespace.length() > MAX_ID_LENGTH || !namespace.matches("\\S+")) {
      throw new IllegalArgumentException(
          NAMESPACE
              + " must be a namespace name without spaces, at most "
              + MAX_ID_LENGTH
              + " long");
    }
    Optional<String> apiKey = value(env, API_KEY);
    return new TemporalSettings(address, namespace, tls(env) || apiKey.isPresent(), apiKey);
  }

  private static Optional<String> value(Map<String, String> env, String name) {
    return Optional.ofNullable(env.get(name)).map(String::trim).filter(v -> !v.isEmpty());
  }

  private static boolean tls(Map<String, String> env) {
    Optional<String> value = value(env, TLS).map(v -> v.toLowerCase(Locale.ROOT));
    if (value.isEmpty() || value.get().equals("false") || value.get().equals("0")) {
      return false;
    }
    if (value.get().equals("true") || value.get().equals("1")) {
      return true;
    }
    throw new IllegalArgumentException(TLS + " must be true or false");
  }

  @Override
  public String toString() {
    return address
        + " (namespace "
        + namespace
        + (tls ? ", TLS" : "")
        + (apiKey.isPresent() ? ", API key set" : "")
        + ")";
  }
}
