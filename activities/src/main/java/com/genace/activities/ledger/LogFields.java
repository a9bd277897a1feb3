package com.genace.activities.ledger;

import com.genace.workflows.OperationLog;
import java.util.Optional;
import org.slf4j.MDC;

/**
 * The names of the fields that log lines carry about the operation being worked on (slf4j's MDC).
 * The worker sets the operation and workflow around each activity and clears them all afterwards;
 * the ledger adds what a claim learns: the lease's revision and owner and the remote job id.
 */
public final class LogFields {

  public static final String OPERATION_ID = OperationLog.OPERATION_ID;
  public static final String WORKFLOW_ID = OperationLog.WORKFLOW_ID;
  public static final String REMOTE_JOB_ID = OperationLog.REMOTE_JOB_ID;
  public static final String REVISION = "revision";
  public static final String OWNER = "owner";

  private LogFields() {}

  /** Records the lease (and the remote job id once known) for the log lines that follow. */
  static void lease(Lease lease, Optional<String> remoteJobId) {
    MDC.put(REVISION, Long.toString(lease.revision()));
    MDC.put(OWNER, lease.owner());
    remoteJobId.ifPresent(LogFields::remoteJob);
  }

  static void remoteJob(String remoteJobId) {
    MDC.put(REMOTE_JOB_ID, remoteJobId);
  }
}
