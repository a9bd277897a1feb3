package com.genace.worker.temporal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.genace.client.connection.GenerationConnection;
import com.genace.client.connection.TemporalUnavailableException;
import com.genace.testkit.LoopbackPorts;
import com.genace.testkit.TestCertificates;
import com.genace.worker.support.ApiKeyTemporalServer;
import com.genace.worker.support.MutualTlsProxy;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.temporal.api.workflowservice.v1.GetSystemInfoRequest;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.testserver.TestServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Temporal behind mutual TLS, as a self-hosted cluster with {@code requireClientAuth} runs it: a
 * front that terminates TLS, requires a client certificate signed by the CA it trusts, and passes
 * the calls to a Temporal server; and Temporal behind TLS with an API key, as Temporal Cloud runs
 * it. A service connects with genace-client's {@link GenerationConnection}; the worker ({@link
 * TemporalTarget}) and the CLI ({@link TemporalConnection}) build their stubs through it too. The
 * certificate files and the key file are read again when they change.
 */
class TemporalMutualTlsTest {

  @TempDir Path dir;

  @Test
  void connects_with_a_client_certificate_and_takes_a_rotated_one_without_a_restart()
      throws Exception {
    TestCertificates certificates = TestCertificates.in(dir);
    TestCertificates.Pair serverCa = certificates.ca("server-ca");
    TestCertificates.Pair server =
        certificates.signed("frontend", serverCa, "DNS:temporal.test", "IP:127.0.0.1");
    TestCertificates.Pair clientsA = certificates.ca("clients-a");
    TestCertificates.Pair clientsB = certificates.ca("clients-b");
    TestCertificates.Pair workerA = certificates.signed("worker-a", clientsA);
    TestCertificates.Pair workerB = certificates.signed("worker-b", clientsB);
    Path cert = dir.resolve("tls.crt");
    Path key = dir.resolve("tls.key");
    install(workerA, cert, key, Instant.now().minusSeconds(60));

    int temporalPort = LoopbackPorts.free();
    try (var temporal = TestServer.createPortBoundServer(temporalPort, true);
        MutualTlsProxy front =
            new MutualTlsProxy(server.cert(), server.key(), clientsA.cert(), temporalPort)) {
      Map<String, String> env = new HashMap<>();
      env.put("TEMPORAL_ADDRESS", "127.0.0.1:" + front.port());
      env.put("TEMPORAL_NAMESPACE", "orders");
      env.put("TEMPORAL_TLS_CA_FILE", serverCa.cert().toString());
      env.put("TEMPORAL_TLS_SERVER_NAME", "temporal.test");

      // Without a client certificate the front refuses the handshake.
      assertThatThrownBy(() -> GenerationConnection.fromEnvironment(env).close())
          .isInstanceOf(TemporalUnavailableException.class);

      env.put("TEMPORAL_TLS_CERT_FILE", cert.toString());
      env.put("TEMPORAL_TLS_KEY_FILE", key.toString());
      try (TemporalConnection cli = TemporalConnection.fromEnvironment(env)) {
        systemInfo(cli.stubs());
        assertThat(cli.workflowClient().getOptions().getNamespace()).isEqualTo("orders");
      }
      try (GenerationConnection connection = GenerationConnection.fromEnvironment(env)) {
        systemInfo(connection.stubs());
        assertThat(front.clients()).last().asString().contains("CN=worker-a");
        assertThat(connection.workflowClient().getOptions().getNamespace()).isEqualTo("orders");

        // The certificate is rotated on disk, and the server now trusts only the new CA: the
        // connections made under the old one are closed, the next handshake sends the new one.
        install(workerB, cert, key, Instant.now());
        front.trust(clientsB.cert());
        await()
            .atMost(Duration.ofSeconds(30))
            .ignoreExceptions()
            .untilAsserted(() -> systemInfo(connection.stubs()));
        assertThat(front.clients()).last().asString().contains("CN=worker-b");
      }
    }
  }

  @Test
  void sends_the_api_key_of_its_file_and_a_rotated_one_without_a_restart() throws Exception {
    TestCertificates certificates = TestCertificates.in(dir);
    TestCertificates.Pair serverCa = certificates.ca("server-ca");
    TestCertificates.Pair server =
        certificates.signed("frontend", serverCa, "DNS:temporal.test", "IP:127.0.0.1");
    Path keyFile = dir.resolve("temporal-api-key");
    Files.writeString(keyFile, "key-one\n");
    Files.setLastModifiedTime(keyFile, FileTime.from(Instant.now().minusSeconds(60)));

    try (ApiKeyTemporalServer temporal =
        new ApiKeyTemporalServer(server.cert(), server.key(), "key-one")) {
      Map<String, String> env = new HashMap<>();
      env.put("TEMPORAL_ADDRESS", "127.0.0.1:" + temporal.port());
      env.put("TEMPORAL_TLS_CA_FILE", serverCa.cert().toString());
      env.put("TEMPORAL_TLS_SERVER_NAME", "temporal.test");
      env.put("TEMPORAL_API_KEY_FILE", keyFile.toString());

      try (GenerationConnection connection = GenerationConnection.fromEnvironment(env)) {
        systemInfo(connection.stubs());
        assertThat(temporal.acceptedKeys()).isNotEmpty().containsOnly("key-one");

        // The key is rotated at the server first: the one in the file is refused...
        temporal.accept("key-two");
        assertThatThrownBy(() -> systemInfo(connection.stubs()))
            .isInstanceOfSatisfying(
                StatusRuntimeException.class,
                e -> {
                  assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAUTHENTICATED);
                  assertThat(e).hasMessageNotContaining("key-one");
                });

        // ... until the file holds the new one: the same connection sends it from the next call.
        Files.writeString(keyFile, "key-two\n");
        Files.setLastModifiedTime(keyFile, FileTime.from(Instant.now()));
        systemInfo(connection.stubs());
        assertThat(temporal.acceptedKeys()).last().isEqualTo("key-two");
      }
    }
  }

  private static void systemInfo(WorkflowServiceStubs stubs) {
    stubs.blockingStub().getSystemInfo(GetSystemInfoRequest.getDefaultInstance());
  }

  /**
   * Puts a certificate and key where the settings point, with a modification time of {@code at}.
   */
  private static void install(TestCertificates.Pair pair, Path cert, Path key, Instant at)
      throws Exception {
    Files.copy(pair.cert(), cert, StandardCopyOption.REPLACE_EXISTING);
    Files.copy(pair.key(), key, StandardCopyOption.REPLACE_EXISTING);
    Files.setLastModifiedTime(cert, FileTime.from(at));
    Files.setLastModifiedTime(key, FileTime.from(at));
  }
}
