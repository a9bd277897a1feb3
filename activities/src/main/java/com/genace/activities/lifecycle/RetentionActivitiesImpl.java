package com.genace.activities.lifecycle;

import com.genace.activities.ledger.LedgerRetention;
import com.genace.workflows.lifecycle.RetentionActivities;
import com.genace.workflows.lifecycle.RetentionReport;
import com.genace.workflows.lifecycle.RetentionRequest;
import io.temporal.activity.Activity;
import io.temporal.api.workflowservice.v1.DescribeNamespaceRequest;
import io.temporal.client.WorkflowClient;
import java.time.Duration;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ledger retention's step (see {@link RetentionActivities#applyRetention}): reads how long the
 * namespace keeps closed workflows (one call), then runs one {@link LedgerRetention} pass over the
 * {@link RetentionWindow#effective effective window}, heartbeating after each batch.
 */
public final class RetentionActivitiesImpl implements RetentionActivities {

  private static final Logger log = LoggerFactory.getLogger(RetentionActivitiesImpl.class);

  private final LedgerRetention retention;
  private final WorkflowClient client;
  private final RetentionListener listener;
  private final LedgerRetention.Bounds bounds;

  public RetentionActivitiesImpl(
      LedgerRetention retention, WorkflowClient client, RetentionListener listener) {
    this(retention, client, listener, LedgerRetention.Bounds.DEFAULT);
  }

  public RetentionActivitiesImpl(
      LedgerRetention retention,
      WorkflowClient client,
      RetentionListener listener,
      LedgerRetention.Bounds bounds) {
    this.retention = retention;
    this.client = client;
    this.listener = listener;
    this.bounds = bounds;
  }

  @Override
  public RetentionReport applyRetention(RetentionRequest request) {
    if (request.keepsEverything()) {
      RetentionReport kept = RetentionReport.keptEverything();
      listener.retentionPassEnded(kept);
      return kept;
    }
    Duration window = RetentionWindow.effective(request.retentionDays(), namespaceRetention());
    RetentionReport report =
        retention.pass(
            window,
            Duration.ofSeconds(request.allowanceWindowSeconds()),
            bounds,
            RetentionActivitiesImpl::heartbeat);
    log.info(
        "retention pass: deleted {} ended operation(s) older than {} days with {} transition(s),"
            + " {} evidence and {} reservation(s) in {} batch(es) and {} ms; kept {} the allowance"
            + " still counts; {}",
        report.operationsDeleted(),
        window.toDays(),
        report.transitionsDeleted(),
        report.evidenceDeleted(),
        report.reservationsDeleted(),
        report.batches(),
        report.elapsedMillis(),
        report.keptForAllowance(),
        report.complete() ? "nothing else is due" : "the next pass goes on");
    listener.retentionPassEnded(report);
    return report;
  }

  /** The namespace's retention of closed workflows; empty when the server does not say. */
  private Optional<Duration> namespaceRetention() {
    try {
      com.google.protobuf.Duration ttl =
          client
              .getWorkflowServiceStubs()
              .blockingStub()
              .describeNamespace(
                  DescribeNamespaceRequest.newBuilder()
                      .setNamespace(client.getOptions().getNamespace())
                      .build())
              .getConfig()
              .getWorkflowExecutionRetentionTtl();
      return Optional.of(Duration.ofSeconds(ttl.getSeconds(), ttl.getNanos()))
          .filter(d -> !d.isZero());
    } catch (RuntimeException e) {
      log.warn(
          "retention: the namespace's retention could not be read ({}); the configured days apply",
          e.getMessage());
      return Optional.empty();
    }
  }

  private static void heartbeat() {
    try {
      Activity.getExecutionContext().heartbeat(null);
    } catch (IllegalStateException notInActivity) {
      // Called directly (tests, the bench): nothing to report to.
    }
  }
}
