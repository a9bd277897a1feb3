package com.genace.ops.support;

import static org.assertj.core.api.Assertions.assertThat;

import com.genace.activities.ledger.OperationRow;
import com.genace.activities.ledger.OperationsLedger;
import com.genace.client.model.Phase;
import com.genace.testkit.simulator.GenaceSimulator;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One {@link TestStack} per test class for the commands that need workers behind them, with the
 * simulator's faults put back after each test. Register it as a static field beside {@code
 * DatabaseExtension}:
 *
 * <pre>{@code
 * @RegisterExtension static final StackFixture stack = new StackFixture();
 * }</pre>
 */
public final class StackFixture implements BeforeAllCallback, AfterEachCallback, AfterAllCallback {

  private Path artifacts;
  private TestStack stack;

  @Override
  public void beforeAll(ExtensionContext context) throws IOException {
    artifacts = Files.createTempDirectory("genace-ops-test-");
    stack = new TestStack(artifacts);
  }

  @Override
  public void afterEach(ExtensionContext context) {
    stack.simulator.setFaults(TestStack.FAULTS);
  }

  @Override
  public void afterAll(ExtensionContext context) throws IOException {
    try {
      stack.close();
    } finally {
      try (Stream<Path> files = Files.walk(artifacts)) {
        for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
          Files.delete(file);
        }
      }
    }
  }

  /** The environment a second terminal would have: Temporal and the database. */
  public Map<String, String> env() {
    return stack.env();
  }

  public GenaceSimulator simulator() {
    return stack.simulator;
  }

  public OperationsLedger ledger() {
    return stack.ledger;
  }

  public OperationRow awaitPhase(String operationId, Phase phase) {
    return stack.awaitPhase(operationId, phase);
  }

  public void awaitWorkflowPhase(String operationId, Phase phase) {
    stack.awaitWorkflowPhase(operationId, phase);
  }

  /** Runs {@code genace ARGS} in this stack's environment. */
  public CliRunner.Result cli(String... args) {
    return CliRunner.run(env(), args);
  }

  /** {@code genace submit} of an image with an empty input under this id; it must be accepted. */
  public void submit(String operationId) {
    CliRunner.Result submitted =
        cli("submit", "--model", "image-v1", "--input", "{}", "--operation-id", operationId);
    assertThat(submitted.exitCode()).as(submitted.err()).isZero();
  }
}
