package com.genace.worker.temporal;

import com.genace.worker.telemetry.TemporalTracing;
import com.genace.workflows.GenerationClient;
import com.genace.workflows.GenerationWorkflow;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContextBuilder;
import io.opentelemetry.api.GlobalOpenTelemetry;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLException;

/**
 * The one way to reach Temporal, for the worker and every command: stubs built from {@link
 * TemporalSettings}, checked at open so that an unreachable server fails fast with a message that
 * names {@code TEMPORAL_ADDRESS} and the address.
 */
public final class TemporalConnection implements AutoCloseable {

  /** How long opening waits for the server to answer its health check. */
  public static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);

  private final WorkflowServiceStubs stubs;
  private final WorkflowClient client;

  private TemporalConnection(WorkflowServiceStubs stubs, String namespace) {
    this.stubs = stubs;
    this.client =
        WorkflowClient.newInstance(
            stubs,
            WorkflowClientOptions.newBuilder()
                .setNamespace(namespace)
                .setInterceptors(TemporalTracing.clientInterceptor(GlobalOpenTelemetry.getOrNoop()))
                .build());
  }

  /**
   * Connects and checks the server's health within {@link #CONNECT_TIMEOUT}.
   *
   * @throws TemporalUnavailableException naming the address when the server does not answer
   */
  public static TemporalConnection open(TemporalSettings settings) {
    WorkflowServiceStubs stubs = stubs(settings, WorkflowServiceStubsOptions.newBuilder());
    requireReachable(stubs, settings.address());
    return new TemporalConnection(stubs, settings.namespace());
  }

  /**
   * Connects from the same variables as the CLI and the worker ({@code TEMPORAL_ADDRESS}, {@code
   * TEMPORAL_NAMESPACE}, {@code TEMPORAL_TLS}, {@code TEMPORAL_API_KEY}), for an application that
   * wants a {@link GenerationClient}:
   *
   * <pre>{@code
   * try (TemporalConnection temporal = TemporalConnection.fromEnvironment(System.getenv())) {
   *   GenerationClient client = temporal.generationClient();
   *   client.start(new GenerationRequest("order-1234", "image-v1", "{\"prompt\":\"a red fox\"}"));
   * }
   * }</pre>
   *
   * @throws IllegalArgumentException naming the variable that is malformed
   * @throws TemporalUnavailableException naming the address when the server does not answer
   */
  public static TemporalConnection fromEnvironment(java.util.Map<String, String> env) {
    return open(TemporalSettings.fromEnvironment(env));
  }

  /**
   * Stubs for {@code settings} on top of the caller's own options (metrics, interceptors). TLS is
   * on when asked for or implied by an API key; the key travels as a bearer token, never logged.
   * The connection is lazy: see {@link #requireReachable}.
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

  public WorkflowServiceStubs stubs() {
    return stubs;
  }

  public WorkflowClient workflowClient() {
    return client;
  }

  public GenerationClient generationClient() {
    return new GenerationClient(client);
  }

  /**
   * Why the operation's workflow cannot run, when its last workflow task failed (see {@link
   * WorkflowTaskFailures}).
   */
  public java.util.Optional<String> workflowTaskFailure(String operationId) {
    return WorkflowTaskFailures.latest(
        stubs, client.getOptions().getNamespace(), GenerationWorkflow.workflowId(operationId));
  }

  @Override
  public void close() {
    stubs.shutdown();
    if (!stubs.awaitTermination(2, TimeUnit.SECONDS)) {
      stubs.shutdownNow();
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
}
