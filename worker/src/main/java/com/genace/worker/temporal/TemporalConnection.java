package com.genace.worker.temporal;

import com.genace.client.GenerationClient;
import com.genace.client.GenerationWorkflow;
import com.genace.client.connection.GenerationConnection;
import com.genace.client.connection.TemporalSettings;
import com.genace.client.connection.TemporalUnavailableException;
import com.genace.worker.telemetry.TemporalTracing;
import io.opentelemetry.api.GlobalOpenTelemetry;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.util.Map;
import java.util.Optional;

/**
 * The worker's and every command's connection to Temporal: genace-client's {@link
 * GenerationConnection} (the one place for address, TLS, API key and their rotation), with the
 * tracing interceptor over {@link GlobalOpenTelemetry} and what only the worker's code base can
 * answer ({@link #workflowTaskFailure}).
 */
public final class TemporalConnection implements AutoCloseable {

  private final GenerationConnection connection;

  private TemporalConnection(GenerationConnection connection) {
    this.connection = connection;
  }

  /**
   * Connects and checks the server's health within {@link GenerationConnection#CONNECT_TIMEOUT}.
   *
   * @throws TemporalUnavailableException naming the address when the server does not answer
   */
  public static TemporalConnection open(TemporalSettings settings) {
    return new TemporalConnection(
        GenerationConnection.open(
            settings,
            WorkflowServiceStubsOptions.newBuilder(),
            WorkflowClientOptions.newBuilder()
                .setInterceptors(
                    TemporalTracing.clientInterceptor(GlobalOpenTelemetry.getOrNoop()))));
  }

  /**
   * Connects from the {@code TEMPORAL_*} variables, as {@link GenerationConnection#fromEnvironment}
   * does, with tracing.
   *
   * @throws IllegalArgumentException naming the variable that is malformed
   * @throws TemporalUnavailableException naming the address when the server does not answer
   */
  public static TemporalConnection fromEnvironment(Map<String, String> env) {
    return open(TemporalSettings.fromEnvironment(env));
  }

  public WorkflowServiceStubs stubs() {
    return connection.stubs();
  }

  public WorkflowClient workflowClient() {
    return connection.workflowClient();
  }

  public GenerationClient generationClient() {
    return connection.generationClient();
  }

  /**
   * Why the operation's workflow cannot run, when its last workflow task failed (see {@link
   * WorkflowTaskFailures}).
   */
  public Optional<String> workflowTaskFailure(String operationId) {
    return WorkflowTaskFailures.latest(
        stubs(),
        workflowClient().getOptions().getNamespace(),
        GenerationWorkflow.workflowId(operationId));
  }

  @Override
  public void close() {
    connection.close();
  }
}
