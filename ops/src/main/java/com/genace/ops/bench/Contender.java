package com.genace.ops.bench;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/**
 * One kind of workflow {@code bench e2e} measures (ours, the naive or the bare baseline): how an
 * operation id names its workflow, how one is started, and how its end is awaited.
 *
 * @param worker the process that serves it, whose CPU time each batch reads
 * @param workflowId the workflow id of an operation id
 * @param start starts the workflow of an operation id; returns once the server accepted it
 * @param result completes when the workflow of an operation id ends
 */
record Contender(
    String name,
    WorkerJvm worker,
    UnaryOperator<String> workflowId,
    Consumer<String> start,
    Function<String, CompletableFuture<?>> result) {

  /** Starts one workflow per operation id and waits for all; returns the batch's figures. */
  Batch.Run run(List<String> operationIds, SimulatorControl simulator) throws InterruptedException {
    SimulatorControl.Counts before = simulator.counts();
    Duration cpuBefore = worker.cpuTime();
    Duration elapsed = Batch.run(operationIds, start, result, Batch.timeout(operationIds.size()));
    return new Batch.Run(
        operationIds.size(),
        elapsed,
        simulator.counts().minus(before),
        worker.cpuTime().minus(cpuBefore));
  }

  List<String> workflowIds(List<String> operationIds) {
    return operationIds.stream().map(workflowId).toList();
  }
}
