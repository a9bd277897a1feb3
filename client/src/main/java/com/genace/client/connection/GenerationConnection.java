package com.genace.client.connection;

import com.genace.client.GenerationClient;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContextBuilder;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLException;

/**
 * A connection to Temporal made from the {@code TEMPORAL_*} variables, the one way the worker, the
 * {@code ./genace} commands and a service reach it: address and namespace, TLS, mutual TLS with a
 * client certificate, an API key. The API key file and the certificate files are read again when
 * they change, so a rotated secret is used without a restart ({@link TlsFiles}, {@link
 * ApiKeyFile}). Opening checks the server's health, so that an unreachable server fails at once
 * with a message that names {@code TEMPORAL_ADDRESS} and the address.
 *
 * <pre>{@code
 * try (GenerationConnection temporal = GenerationConnection.fromEnvironment()) {
 *   GenerationClient client = temporal.generationClient();
 *   client.start(new GenerationRequest("order-1234", "image-v1", "{\"prompt\":\"a red fox\"}"));
 * }
 * }</pre>
 *
 * <p>A service opens one at start and shares it (the stubs and clients are thread-safe); closing it
 * closes the channel.
 */
public final class GenerationConnection implements AutoCloseable {

  /** How long opening waits for the server to answer its health check. */
  public static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);

  private final WorkflowServiceStubs stubs;
  private final WorkflowClient client;

  private GenerationConnection(WorkflowServiceStubs stubs, WorkflowClient client) {
    this.stubs = stubs;
    this.client = client;
  }

  /**
   * Connects from the process's environment ({@link System#getenv()}).
   *
   * @throws IllegalArgumentException naming the variable that is malformed or the file that cannot
   *     be read
   * @throws TemporalUnavailableException naming the address when the server does not answer
   */
  public static GenerationConnection fromEnvironment() {
    return fromEnvironment(System.getenv());
  }

  /**
   * Connects from these variables ({@code TEMPORAL_ADDRESS}, {@code TEMPORAL_NAMESPACE}, {@code
   * TEMPORAL_TLS}, {@code TEMPORAL_API_KEY} or {@code TEMPORAL_API_KEY_FILE}, {@code
   * TEMPORAL_TLS_CERT_FILE} with {@code TEMPORAL_TLS_KEY_FILE}, {@code TEMPORAL_TLS_CA_FILE},
   * {@code TEMPORAL_TLS_SERVER_NAME}; see {@link TemporalSettings}).
   *
   * @throws IllegalArgumentException naming the variable that is malformed or the file that cannot
   *     be read
   * @throws TemporalUnavailableException naming the address when the server does not answer
   */
  public static GenerationConnection fromEnvironment(Map<String, String> env) {
    return open(TemporalSettings.fromEnvironment(env));
  }

  /** Connects to what {@code settings} name, with the SDK's default options otherwise. */
  public static GenerationConnection open(TemporalSettings settings) {
    return open(
        settings, WorkflowServiceStubsOptions.newBuilder(), WorkflowClientOptions.newBuilder());
  }

  /**
   * Connects to what {@code settings} name on top of the caller's own options: the stubs' metrics
   * scope or gRPC settings, the client's interceptors (tracing), data converter or identity. The
   * target, TLS, API key and namespace are the settings', whatever the options say.
   *
   * @throws TemporalUnavailableException naming the address when the server does not answer
   */
  public static GenerationConnection open(
      TemporalSettings settings,
      WorkflowServiceStubsOptions.Builder stubOptions,
      WorkflowClientOptions.Builder clientOptions) {
    WorkflowServiceStubs stubs = stubs(settings, stubOptions);
    requireReachable(stubs, settings.address());
    clientOptions.setDataConverter(PayloadKeys.dataConverter(settings.payloadKeys()));
    return new GenerationConnection(
        stubs,
        WorkflowClient.newInstance(
            stubs, clientOptions.setNamespace(settings.namespace()).build()));
  }

  /**
   * Stubs for {@code settings} on top of the caller's own options (metrics, interceptors). TLS is
   * on when asked for or implied by an API key or a TLS file; the key travels as a bearer token,
   * never logged. The connection is lazy: see {@link #requireReachable}.
   *
   * @throws IllegalArgumentException naming the variable whose file cannot be used
   */
  public static WorkflowServiceStubs stubs(
      TemporalSettings settings, WorkflowServiceStubsOptions.Builder options) {
    options.setTarget(settings.address()).setEnableHttps(settings.tls());
    settings.apiKey().ifPresent(key -> options.addApiKey(() -> key));
    settings.apiKeyFile().map(ApiKeyFile::new).ifPresent(key -> options.addApiKey(key::get));
    TlsFiles files = settings.tlsFiles();
    if (files.clientCertificate() || files.caFile().isPresent()) {
      files.check();
      try {
        SslContextBuilder tls = GrpcSslContexts.forClient();
        if (files.clientCertificate()) {
          tls.keyManager(files.keyManager());
        }
        files.caFile().ifPresent(ca -> tls.trustManager(files.trustManager()));
        options.setSslContext(tls.build());
      } catch (SSLException e) {
        throw new IllegalArgumentException("cannot set up TLS to Temporal: " + e.getMessage(), e);
      }
    }
    settings
        .serverName()
        .ifPresent(
            name -> options.setChannelInitializer(channel -> channel.overrideAuthority(name)));
    return WorkflowServiceStubs.newServiceStubs(options.build());
  }

  /**
   * Waits for the server's health check, closing the stubs when it does not answer.
   *
   * @throws TemporalUnavailableException naming {@code TEMPORAL_ADDRESS} and the address
   */
  public static void requireReachable(WorkflowServiceStubs stubs, String address) {
    try {
      stubs.connect(CONNECT_TIMEOUT);
    } catch (StatusRuntimeException | IllegalStateException e) {
      stubs.shutdownNow();
      throw new TemporalUnavailableException(
          "cannot reach Temporal at "
              + address
              + " ("
              + TemporalSettings.ADDRESS
              + ") within "
              + CONNECT_TIMEOUT.toSeconds()
              + " s (is it running? set TEMPORAL_ADDRESS, or start ./genace dev): "
              + describe(e),
          e);
    }
  }

  /** A gRPC failure as {@code CODE description}, without the stack. */
  public static String describe(RuntimeException e) {
    if (e instanceof StatusRuntimeException status) {
      String description = status.getStatus().getDescription();
      return status.getStatus().getCode() + (description == null ? "" : " " + description);
    }
    return String.valueOf(e.getMessage());
  }

  public WorkflowServiceStubs stubs() {
    return stubs;
  }

  /** The client for the configured namespace. */
  public WorkflowClient workflowClient() {
    return client;
  }

  /** A {@link GenerationClient} over {@link #workflowClient()}. */
  public GenerationClient generationClient() {
    return new GenerationClient(client);
  }

  /** Closes the channel, waiting up to 2 s for the calls under way. */
  @Override
  public void close() {
    stubs.shutdown();
    if (!stubs.awaitTermination(2, TimeUnit.SECONDS)) {
      stubs.shutdownNow();
    }
  }
}
