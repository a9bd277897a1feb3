package com.genace.ops.temporal;

import com.genace.ops.ConfigurationException;
import com.genace.ops.Environment;
import java.util.Locale;
import java.util.Optional;

/**
 * Where Temporal is, from the environment, with the Temporal CLI's variable names. {@link
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

  /**
   * @throws ConfigurationException naming the variable that is malformed
   */
  public static TemporalSettings from(Environment env) {
    String address = env.get(ADDRESS).map(String::trim).orElse(DEFAULT_ADDRESS);
    if (!address.matches("[A-Za-z0-9.\\-\\[\\]:]+:\\d{1,5}")) {
      throw new ConfigurationException(
          ADDRESS + " must be host:port (for example " + DEFAULT_ADDRESS + ")");
    }
    String namespace = env.get(NAMESPACE).map(String::trim).orElse(DEFAULT_NAMESPACE);
    Optional<String> apiKey = env.get(API_KEY);
    return new TemporalSettings(address, namespace, tls(env) || apiKey.isPresent(), apiKey);
  }

  private static boolean tls(Environment env) {
    Optional<String> value = env.get(TLS).map(v -> v.trim().toLowerCase(Locale.ROOT));
    if (value.isEmpty() || value.get().equals("false") || value.get().equals("0")) {
      return false;
    }
    if (value.get().equals("true") || value.get().equals("1")) {
      return true;
    }
    throw new ConfigurationException(TLS + " must be true or false");
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
