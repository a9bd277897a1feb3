package com.genace.worker.temporal;

import com.genace.activities.ledger.AccountSettings;
import com.genace.client.TaskQueues;
import io.temporal.api.enums.v1.TaskQueueType;
import io.temporal.api.taskqueue.v1.TaskQueue;
import io.temporal.api.workflowservice.v1.DescribeTaskQueueRequest;
import io.temporal.api.workflowservice.v1.UpdateTaskQueueConfigRequest;
import io.temporal.serviceclient.WorkflowServiceStubs;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;

/**
 * Each account's fairness weight, as the ledger holds it ({@code ops accounts set --weight}), in
 * Temporal: the weight overrides of the fairness key (the account, set when an operation starts) on
 * every task queue where an operation's work waits. The ledger is the truth; Temporal's copy is
 * written when the weight is set and again whenever a worker starts, so that a Temporal cluster
 * restored or replaced gets the weights back. Where fairness is off on the server the overrides are
 * stored and change nothing.
 */
public final class FairnessWeights {

  /** A task queue and the kind of its tasks: Temporal keeps a configuration for each. */
  public record Queue(String name, TaskQueueType type) {}

  /** Workflow tasks, and each kind of activity: every queue the fairness key orders. */
  public static final List<Queue> QUEUES =
      List.of(
          new Queue(TaskQueues.OPERATIONS, TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW),
          new Queue(TaskQueues.OPERATIONS, TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY),
          new Queue(TaskQueues.DISPATCH, TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY),
          new Queue(TaskQueues.OBSERVATION, TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY));

  /** Keys per request: a fleet of many accounts is written in several requests. */
  private static final int KEYS_PER_REQUEST = 100;

  private final WorkflowServiceStubs stubs;
  private final String namespace;
  private final String identity;

  public FairnessWeights(WorkflowServiceStubs stubs, String namespace, String identity) {
    this.stubs = stubs;
    this.namespace = namespace;
    this.identity = identity;
  }

  /**
   * Writes every account's weight to every queue: a weight sets the override, none (Temporal's
   * default) removes it.
   *
   * @return how many accounts' weights were written
   * @throws io.grpc.StatusRuntimeException when Temporal refuses (a server without task-queue
   *     configuration, or a caller without the permission)
   */
  public int apply(List<AccountSettings.Account> accounts) {
    for (int from = 0; from < accounts.size(); from += KEYS_PER_REQUEST) {
      List<AccountSettings.Account> chunk =
          accounts.subList(from, Math.min(accounts.size(), from + KEYS_PER_REQUEST));
      Map<String, OptionalDouble> weights = new LinkedHashMap<>();
      chunk.forEach(account -> weights.put(account.account(), account.weight()));
      write(weights);
    }
    return accounts.size();
  }

  /** The one account's weight (empty: Temporal's default), to every queue. */
  public void apply(String account, OptionalDouble weight) {
    write(Map.of(account, weight));
  }

  /** One request per queue: each weight set, each absent one unset. */
  private void write(Map<String, OptionalDouble> weights) {
    for (Queue queue : QUEUES) {
      UpdateTaskQueueConfigRequest.Builder request =
          UpdateTaskQueueConfigRequest.newBuilder()
              .setNamespace(namespace)
              .setIdentity(identity)
              .setTaskQueue(queue.name())
              .setTaskQueueType(queue.type());
      weights.forEach(
          (account, weight) -> {
            if (weight.isPresent()) {
              request.putSetFairnessWeightOverrides(account, (float) weight.getAsDouble());
            } else {
              request.addUnsetFairnessWeightOverrides(account);
            }
          });
      stubs.blockingStub().updateTaskQueueConfig(request.build());
    }
  }

  /** The weight overrides Temporal holds for {@code queue}. */
  public Map<String, Float> read(Queue queue) {
    return stubs
        .blockingStub()
        .describeTaskQueue(
            DescribeTaskQueueRequest.newBuilder()
                .setNamespace(namespace)
                .setTaskQueue(TaskQueue.newBuilder().setName(queue.name()))
                .setTaskQueueType(queue.type())
                .setReportConfig(true)
                .build())
        .getConfig()
        .getFairnessWeightOverridesMap();
  }
}
