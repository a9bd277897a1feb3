package com.genace.client.connection;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Where Temporal is, from the environment, with the Temporal CLI's variable names: the one parser
 * of {@code TEMPORAL_*}, shared by the worker, every {@code ./genace} command and a service's
 * {@link GenerationConnection}. {@link #toString()} never shows the API key.
 *
 * @param address {@code host:port} of the frontend
 * @param namespace the namespace operations run in
 * @param tls whether to connect with TLS (implied by an API key and by any TLS file)
 * @param apiKey a bearer key for Temporal Cloud or a proxy, if any
 * @param apiKeyFile a file holding that key instead, read again when it changes
 * @param tlsFiles the client certificate and key (mutual TLS) and the CA to trust, if given
 * @param serverName the name to expect in the server's certificate, when not the address's host
 * @param payloadKeys the payload codec's keys ({@code GENACE_PAYLOAD_KEYS}): every payload this
 *     client writes is encrypted, and it decrypts what those keys encrypted
 */
public record TemporalSettings(
    String address,
    String namespace,
    boolean tls,
    Optional<String> apiKey,
    Optional<Path> apiKeyFile,
    TlsFiles tlsFiles,
    Optional<String> serverName,
    Optional<PayloadKeys> payloadKeys) {

  public static final String ADDRESS = "TEMPORAL_ADDRESS";
  public static final String NAMESPACE = "TEMPORAL_NAMESPACE";
  public static final String TLS = "TEMPORAL_TLS";
  public static final String API_KEY = "TEMPORAL_API_KEY";
  public static final String API_KEY_FILE = "TEMPORAL_API_KEY_FILE";
  public static final String TLS_CERT_FILE = "TEMPORAL_TLS_CERT_FILE";
  public static final String TLS_KEY_FILE = "TEMPORAL_TLS_KEY_FILE";
  public static final String TLS_CA_FILE = "TEMPORAL_TLS_CA_FILE";
  public static final String TLS_SERVER_NAME = "TEMPORAL_TLS_SERVER_NAME";

  private static final TlsFiles NO_FILES =
      new TlsFiles(Optional.empty(), Optional.empty(), Optional.empty());

  public TemporalSettings {
    if (apiKey.isPresent() && apiKeyFile.isPresent()) {
      throw new IllegalArgumentException(API_KEY + " and " + API_KEY_FILE + ": set one of them");
    }
  }

  /** Without key file, TLS files or server name. */
  public TemporalSettings(String address, String namespace, boolean tls, Optional<String> apiKey) {
    this(
        address,
        namespace,
        tls,
        apiKey,
        Optional.empty(),
        NO_FILES,
        Optional.empty(),
        Optional.empty());
  }

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
    Optional<Path> apiKeyFile = file(env, API_KEY_FILE);
    TlsFiles files =
        new TlsFiles(file(env, TLS_CERT_FILE), file(env, TLS_KEY_FILE), file(env, TLS_CA_FILE));
    Optional<String> serverName = value(env, TLS_SERVER_NAME);
    boolean tls =
        tls(env)
            || apiKey.isPresent()
            || apiKeyFile.isPresent()
            || files.clientCertificate()
            || files.caFile().isPresent()
            || serverName.isPresent();
    return new TemporalSettings(
        address,
        namespace,
        tls,
        apiKey,
        apiKeyFile,
        files,
        serverName,
        PayloadKeys.fromEnvironment(env));
  }

  private static Optional<String> value(Map<String, String> env, String name) {
    return Optional.ofNullable(env.get(name)).map(String::trim).filter(v -> !v.isEmpty());
  }

  /** A file the variable names, which must be readable now (it is read again when it changes). */
  private static Optional<Path> file(Map<String, String> env, String name) {
    Optional<Path> file = value(env, name).map(Path::of);
    file.filter(f -> !Files.isReadable(f))
        .ifPresent(
            f -> {
              throw new IllegalArgumentException(name + ": cannot read " + f);
            });
    return file;
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
        + (tlsFiles.clientCertificate() ? ", client certificate " + tlsFiles.certFile().get() : "")
        + (apiKey.isPresent() || apiKeyFile.isPresent() ? ", API key set" : "")
        + ")";
  }
}
