package com.genace.worker.temporal;

import com.genace.client.connection.GenerationConnection;
import com.genace.client.connection.TemporalSettings;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;

/**
 * Which Temporal server a worker connects to. The worker adds its own options (metrics, the
 * task-poll watch) to whatever the target sets.
 */
public interface TemporalTarget {

  /** {@code host:port}, for messages. */
  String address();

  /** Lazy stubs carrying {@code options} (the first call reaches the server). */
  WorkflowServiceStubs connect(WorkflowServiceStubsOptions.Builder options);

  /** The server named by the settings: address, TLS, API key. */
  static TemporalTarget of(TemporalSettings settings) {
    return new TemporalTarget() {
      @Override
      public String address() {
        return settings.address();
      }

      @Override
      public WorkflowServiceStubs connect(WorkflowServiceStubsOptions.Builder options) {
        return GenerationConnection.stubs(settings, options);
      }
    };
  }

  /** The server behind existing stubs, on their channel (an in-process test server). */
  static TemporalTarget sameChannelAs(WorkflowServiceStubs existing, String address) {
    return new TemporalTarget() {
      @Override
      public String address() {
        return address;
      }

      @Override
      public WorkflowServiceStubs connect(WorkflowServiceStubsOptions.Builder options) {
        return WorkflowServiceStubs.newServiceStubs(
            options.setChannel(existing.getRawChannel()).build());
      }
    };
  }
}
