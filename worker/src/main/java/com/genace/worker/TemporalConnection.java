package com.genace.worker;

import com.genace.worker.config.WorkerConfig;
import com.uber.m3.tally.RootScopeBuilder;
import io.micrometer.core.instrument.MeterRegistry;
import io.temporal.common.reporter.MicrometerClientStatsReporter;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;

/** Opens the connection to the Temporal cluster named by the configuration. */
public final class TemporalConnection {

  private TemporalConnection() {}

  /**
   * Connects lazily (the first call reaches the server). TLS is on when {@code TEMPORAL_TLS} is
   * true or an API key is given; the key travels as a bearer token and is never logged.
   */
  public static WorkflowServiceStubs connect(WorkerConfig config, MeterRegistry registry) {
    WorkflowServiceStubsOptions.Builder options =
        WorkflowServiceStubsOptions.newBuilder()
            .setTarget(config.temporalAddress())
            .setEnableHttps(config.temporalTls() || config.temporalApiKey().isPresent())
            .setMetricsScope(
                new RootScopeBuilder()
                    .reporter(new MicrometerClientStatsReporter(registry))
                    .reportEvery(com.uber.m3.util.Duration.ofSeconds(10)));
    config.temporalApiKey().ifPresent(key -> options.addApiKey(() -> key));
    return WorkflowServiceStubs.newServiceStubs(options.build());
  }
}
