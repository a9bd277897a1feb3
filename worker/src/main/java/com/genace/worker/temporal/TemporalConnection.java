package com.genace.ops.temporal;

import com.genace.worker.telemetry.TemporalTracing;
import com.genace.workflows.GenerationClient;
import io.grpc.StatusRuntimeException;
import io.opentelemetry.api.GlobalOpenTelemetry;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.time.Duration;

/** A client connection to Temporal, checked at open so that an unreachable server fails fast. */
public final class TemporalConnection implements AutoCloseable {

  /** How long opening waits for the server to answer its health check. */
  public static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);

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
    WorkflowServiceStubsOptions.Builder options =
        WorkflowServiceStubsOptions.newBuilder().setTarget(settings.address());
    if (settings.tls()) {
      options.setEnableHttps(true);
    }
    settings.apiKey().ifPresent(key -> options.addApiKey(() -> key));
    WorkflowServiceStubs stubs = WorkflowServiceStubs.newServiceStubs(options.build());
    try {
      stubs.connect(CONNECT_TIMEOUT);
    } catch (StatusRuntimeException | IllegalStateException e) {
      stubs.shutdownNow();
      throw new TemporalUnavailableException(
          "cannot reach Temporal at "
              + settings.address()
              + " within "
              + CONNECT_TIMEOUT.toSeconds()
              + " s (is it running? set TEMPORAL_ADDRESS, or start ./genace dev): "
              + describe(e),
          e);
    }
    return new TemporalConnection(stubs, settings.namespace());
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

  @Override
  public void close() {
    stubs.shutdown();
    if (!stubs.awaitTermination(2, java.util.concurrent.TimeUnit.SECONDS)) {
      stubs.shutdownNow();
    }
  }

  private static String describe(RuntimeException e) {
    if (e instanceof StatusRuntimeException status) {
      String description = status.getStatus().getDescription();
      return status.getStatus().getCode() + (description == null ? "" : " " + description);
    }
    return String.valueOf(e.getMessage());
  }
}
