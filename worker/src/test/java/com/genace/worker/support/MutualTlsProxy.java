package com.genace.worker.support;

import com.genace.client.connection.TlsFiles;
import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;

/**
 * A TLS front that requires a client certificate, as a Temporal frontend with mutual TLS does: it
 * terminates TLS (ALPN {@code h2}), checks the client's certificate against the CA it trusts, and
 * passes the plain HTTP/2 on to a Temporal server without TLS. The CA it trusts can be changed
 * ({@link #trust}), which also closes the connections made under the old one, as a rotation of the
 * clients' CA on the server would.
 */
public final class MutualTlsProxy implements AutoCloseable {

  private final Path serverCert;
  private final Path serverKey;
  private final int targetPort;
  private final List<Socket> open = new CopyOnWriteArrayList<>();
  private final List<String> clients = new CopyOnWriteArrayList<>();
  private volatile SSLServerSocket server;

  public MutualTlsProxy(Path serverCert, Path serverKey, Path clientCa, int target)
      throws Exception {
    this.serverCert = serverCert;
    this.serverKey = serverKey;
    this.targetPort = target;
    this.server = listen(clientCa, 0);
  }

  public int port() {
    return server.getLocalPort();
  }

  /** The subjects of the client certificates of the handshakes that succeeded, in order. */
  public List<String> clients() {
    return List.copyOf(clients);
  }

  /** Trusts only {@code clientCa} from now on, on the same port; closes every connection. */
  public synchronized void trust(Path clientCa) throws Exception {
    int port = port();
    server.close();
    open.forEach(TcpProxy::closeQuietly);
    open.clear();
    server = listen(clientCa, port);
  }

  private SSLServerSocket listen(Path clientCa, int port) throws Exception {
    KeyStore identity = KeyStore.getInstance("PKCS12");
    identity.load(null, null);
    identity.setKeyEntry(
        "server",
        TlsFiles.privateKey(serverKey),
        new char[0],
        TlsFiles.certificates(serverCert).toArray(X509Certificate[]::new));
    KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    keys.init(identity, new char[0]);
    KeyStore trusted = KeyStore.getInstance("PKCS12");
    trusted.load(null, null);
    trusted.setCertificateEntry("clients", TlsFiles.certificates(clientCa).get(0));
    TrustManagerFactory trust =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    trust.init(trusted);
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(keys.getKeyManagers(), trust.getTrustManagers(), null);
    SSLServerSocket socket =
        (SSLServerSocket)
            context
                .getServerSocketFactory()
                .createServerSocket(port, 50, InetAddress.getLoopbackAddress());
    SSLParameters parameters = socket.getSSLParameters();
    parameters.setNeedClientAuth(true);
    parameters.setApplicationProtocols(new String[] {"h2"});
    socket.setSSLParameters(parameters);
    Thread acceptor = new Thread(() -> accept(socket), "mtls-proxy");
    acceptor.setDaemon(true);
    acceptor.start();
    return socket;
  }

  private void accept(SSLServerSocket socket) {
    while (!socket.isClosed()) {
      try {
        SSLSocket client = (SSLSocket) socket.accept();
        Thread handshake =
            new Thread(
                () -> {
                  try {
                    client.startHandshake();
                    clients.add(
                        ((X509Certificate) client.getSession().getPeerCertificates()[0])
                            .getSubjectX500Principal()
                            .getName());
                    Socket upstream = new Socket(InetAddress.getLoopbackAddress(), targetPort);
                    open.add(client);
                    open.add(upstream);
                    TcpProxy.pump(client, upstream);
                    TcpProxy.pump(upstream, client);
                  } catch (IOException refused) {
                    TcpProxy.closeQuietly(client); // no certificate, or one the CA did not sign
                  }
                },
                "mtls-proxy-handshake");
        handshake.setDaemon(true);
        handshake.start();
      } catch (IOException e) {
        // the server socket closed
      }
    }
  }

  @Override
  public void close() throws IOException {
    server.close();
    open.forEach(TcpProxy::closeQuietly);
  }
}
