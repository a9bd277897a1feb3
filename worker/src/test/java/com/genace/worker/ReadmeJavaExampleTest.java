package com.genace.worker;

import static org.assertj.core.api.Assertions.assertThat;

import com.genace.activities.testing.DatabaseExtension;
import com.genace.client.GenerationClient;
import com.genace.client.GenerationRequest;
import com.genace.client.OperationResult;
import com.genace.client.OperationView;
import com.genace.client.model.Phase;
import com.genace.worker.support.GenerationHarness;
import io.temporal.client.WorkflowClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's Java example ("Starting operations from your services") runs as written: {@link
 * #startDescribeAwait} holds it verbatim, and a test checks that the README still shows exactly
 * that code (the Python and curl examples are run by scripts/contract-tier.sh).
 */
@ExtendWith(DatabaseExtension.class)
class ReadmeJavaExampleTest {

  private static final Pattern JAVA_EXAMPLE =
      Pattern.compile("<!-- ci-example: java -->\\s*```java\\n(.*?)```", Pattern.DOTALL);

  @TempDir Path artifacts;

  @Test
  void the_readme_example_starts_describes_and_awaits_an_operation() throws Exception {
    try (GenerationHarness harness = new GenerationHarness(artifacts)) {
      OperationResult result =
          startDescribeAwait(harness.temporal.getWorkflowClient(), "readme-java");

      assertThat(result.phase()).isEqualTo(Phase.DELIVERED);
      assertThat(harness.simulator.stats().postsFor("readme-java")).isEqualTo(1);
    }
  }

  @Test
  void the_readme_shows_the_code_this_test_runs() throws Exception {
    Matcher example = JAVA_EXAMPLE.matcher(Files.readString(Path.of("..", "README.md")));
    assertThat(example.find()).as("README has a block marked ci-example: java").isTrue();
    String source =
        Files.readString(Path.of("src/test/java/com/genace/worker/ReadmeJavaExampleTest.java"));

    assertThat(normalized(source)).contains(normalized(example.group(1)));
  }

  private static OperationResult startDescribeAwait(
      WorkflowClient workflowClient, String operationId) throws Exception {
    GenerationClient generations = new GenerationClient(workflowClient);
    generations.start(new GenerationRequest(operationId, "image-v1", "{\"prompt\":\"a red fox\"}"));
    OperationView view = generations.describe(operationId);
    OperationResult result = generations.awaitResult(operationId, Duration.ofMinutes(5));
    assertThat(view.operationId()).isEqualTo(operationId);
    return result;
  }

  /** White space does not matter: the formatter may wrap the code differently than the README. */
  private static String normalized(String code) {
    return code.replaceAll("\\s+", "");
  }
}
