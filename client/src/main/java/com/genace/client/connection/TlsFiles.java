package com.genace.client.connection;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedKeyManager;
import javax.net.ssl.X509ExtendedTrustManager;
import javax.net.ssl.X509KeyManager;

/**
 * A client certificate and its key, and the CA that signs the server's certificate, read from PEM
 * files and read again when a file changes: a certificate rotated on disk (a Kubernetes Secret
 * updated in place, cert-manager renewing it) is used by the next TLS handshake, without a restart.
 * gRPC keeps its connections, so the files are looked at when a connection is made: the key and
 * trust managers here are asked at each handshake and compare the files' modification times then.
 *
 * @param certFile the client certificate chain (PEM), {@code TEMPORAL_TLS_CERT_FILE}
 * @param keyFile its private key (PEM, PKCS#8: {@code BEGIN PRIVATE KEY}), {@code
 *     TEMPORAL_TLS_KEY_FILE}
 * @param caFile the CA certificates to trust for the server (PEM), {@code TEMPORAL_TLS_CA_FILE};
 *     the JDK's trust store when absent
 */
public record TlsFiles(Optional<Path> certFile, Optional<Path> keyFile, Optional<Path> caFile) {

  private static final Pattern PEM_KEY =
      Pattern.compile(
          "-----BEGIN ([A-Z ]*)PRIVATE KEY-----([A-Za-z0-9+/=\\s]+)-----END \\1PRIVATE KEY-----");

  public TlsFiles {
    if (certFile.isPresent() != keyFile.isPresent()) {
      throw new IllegalArgumentException(
          "TEMPORAL_TLS_CERT_FILE and TEMPORAL_TLS_KEY_FILE go together: set both or neither");
    }
  }

  public boolean clientCertificate() {
    return certFile.isPresent();
  }

  /** The key manager for the client certificate, read again when either file changes. */
  public X509ExtendedKeyManager keyManager() {
    return new ReloadingKeyManager(certFile.orElseThrow(), keyFile.orElseThrow());
  }

  /** The trust manager for {@link #caFile}, read again when it changes. */
  public X509ExtendedTrustManager trustManager() {
    return new ReloadingTrustManager(caFile.orElseThrow());
  }

  /** Reads the files once now, so that a missing or malformed one stops the start. */
  public void check() {
    if (clientCertificate()) {
      keyManager().getCertificateChain(ReloadingKeyManager.ALIAS);
    }
    caFile.ifPresent(ca -> trustManager().getAcceptedIssuers());
  }

  /** The material as last read, and the files' modification times it was read at. */
  private abstract static class Reloading<T> {
    private final List<Path> files;
    private List<FileTime> readAt = List.of();
    private T current;
    private int generation;

    Reloading(Path... files) {
      this.files = List.of(files);
    }

    synchronized T current() {
      List<FileTime> now = files.stream().map(Reloading::modified).toList();
      if (!now.equals(readAt)) {
        current = load();
        readAt = now;
        generation++;
      }
      return current;
    }

    /** How many times the files were read: changes with every new content. */
    synchronized int generation() {
      current();
      return generation;
    }

    abstract T load();

    private static FileTime modified(Path file) {
      try {
        return Files.getLastModifiedTime(file);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read " + file, e);
      }
    }
  }

  /**
   * The key manager of the client certificate. Its alias changes with each new content of the
   * files: Netty's OpenSSL engine keeps the key material it got for an alias, so a new alias is
   * what makes it ask for the rotated one.
   */
  private static final class ReloadingKeyManager extends X509ExtendedKeyManager {
    static final String ALIAS = "client";

    private final Reloading<X509KeyManager> material;

    ReloadingKeyManager(Path certFile, Path keyFile) {
      this.material =
          new Reloading<>(certFile, keyFile) {
            @Override
            X509KeyManager load() {
              try {
                KeyStore store = KeyStore.getInstance("PKCS12");
                store.load(null, null);
                store.setKeyEntry(
                    ALIAS,
                    privateKey(keyFile),
                    new char[0],
                    certificates(certFile).toArray(Certificate[]::new));
                KeyManagerFactory factory =
                    KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
                factory.init(store, new char[0]);
                return (X509KeyManager) factory.getKeyManagers()[0];
              } catch (GeneralSecurityException | IOException e) {
                throw new IllegalArgumentException(
                    "TEMPORAL_TLS_CERT_FILE / TEMPORAL_TLS_KEY_FILE: cannot use "
                        + certFile
                        + " and "
                        + keyFile
                        + ": "
                        + e.getMessage(),
                    e);
              }
            }
          };
    }

    /** Asked at each handshake: the moment to look at the files again. */
    private String currentAlias() {
      return ALIAS + "-" + material.generation();
    }

    @Override
    public String chooseClientAlias(String[] keyTypes, Principal[] issuers, Socket socket) {
      return currentAlias();
    }

    @Override
    public String chooseEngineClientAlias(String[] keyTypes, Principal[] issuers, SSLEngine e) {
      return currentAlias();
    }

    @Override
    public X509Certificate[] getCertificateChain(String alias) {
      return material.current().getCertificateChain(ALIAS);
    }

    @Override
    public PrivateKey getPrivateKey(String alias) {
      return material.current().getPrivateKey(ALIAS);
    }

    @Override
    public String[] getClientAliases(String keyType, Principal[] issuers) {
      return new String[] {currentAlias()};
    }

    @Override
    public String[] getServerAliases(String keyType, Principal[] issuers) {
      return null;
    }

    @Override
    public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
      return null;
    }
  }

  private static final class ReloadingTrustManager extends X509ExtendedTrustManager {
    private final Reloading<X509ExtendedTrustManager> material;

    ReloadingTrustManager(Path caFile) {
      this.material =
          new Reloading<>(caFile) {
            @Override
            X509ExtendedTrustManager load() {
              try {
                KeyStore store = KeyStore.getInstance("PKCS12");
                store.load(null, null);
                int i = 0;
                for (X509Certificate ca : certificates(caFile)) {
                  store.setCertificateEntry("ca-" + i++, ca);
                }
                TrustManagerFactory factory =
                    TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
                factory.init(store);
                return (X509ExtendedTrustManager) factory.getTrustManagers()[0];
              } catch (GeneralSecurityException | IOException e) {
                throw new IllegalArgumentException(
                    "TEMPORAL_TLS_CA_FILE: cannot use " + caFile + ": " + e.getMessage(), e);
              }
            }
          };
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
        throws java.security.cert.CertificateException {
      material.current().checkServerTrusted(chain, authType, engine);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
        throws java.security.cert.CertificateException {
      material.current().checkServerTrusted(chain, authType, socket);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType)
        throws java.security.cert.CertificateException {
      material.current().checkServerTrusted(chain, authType);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
        throws java.security.cert.CertificateException {
      throw new java.security.cert.CertificateException("a client does not trust clients");
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
        throws java.security.cert.CertificateException {
      throw new java.security.cert.CertificateException("a client does not trust clients");
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType)
        throws java.security.cert.CertificateException {
      throw new java.security.cert.CertificateException("a client does not trust clients");
    }

    @Override
    public X509Certificate[] getAcceptedIssuers() {
      return material.current().getAcceptedIssuers();
    }
  }

  /** The certificates of a PEM file, in order. */
  public static List<X509Certificate> certificates(Path pem)
      throws IOException, GeneralSecurityException {
    try (InputStream in = Files.newInputStream(pem)) {
      List<X509Certificate> certificates =
          CertificateFactory.getInstance("X.509").generateCertificates(in).stream()
              .map(X509Certificate.class::cast)
              .toList();
      if (certificates.isEmpty()) {
        throw new GeneralSecurityException("no certificate in " + pem);
      }
      return certificates;
    }
  }

  /** A PKCS#8 PEM key ({@code BEGIN PRIVATE KEY}), RSA, EC or Ed25519. */
  public static PrivateKey privateKey(Path pem) throws IOException, GeneralSecurityException {
    Matcher block = PEM_KEY.matcher(Files.readString(pem));
    if (!block.find()) {
      throw new GeneralSecurityException("no PEM private key in " + pem);
    }
    if (!block.group(1).isEmpty()) {
      throw new GeneralSecurityException(
          "the key is "
              + block.group(1).trim()
              + " PEM; give it as PKCS#8 (openssl pkcs8 -topk8 -nocrypt -in KEY -out KEY.pk8)");
    }
    byte[] der = Base64.getMimeDecoder().decode(block.group(2));
    for (String algorithm : List.of("RSA", "EC", "Ed25519")) {
      try {
        return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
      } catch (GeneralSecurityException tryTheNext) {
        // the key is of another algorithm
      }
    }
    throw new GeneralSecurityException("the PKCS#8 key in " + pem + " is not RSA, EC or Ed25519");
  }
}
