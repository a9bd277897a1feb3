package com.genace.activities.genace;

import static com.genace.activities.genace.support.ClientTestSupport.API_KEY;
import static com.genace.activities.genace.support.ClientTestSupport.clientFor;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.genace.testkit.simulator.Faults;
import com.genace.testkit.simulator.GenaceSimulator;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** What a review's evidence reads: a job with its metadata, and the optional search. */
class JobLookupTest {

  private GenaceSimulator simulator;
  private HttpGenaceClient client;

  @BeforeEach
  void start() {
    simulator = GenaceSimulator.builder().apiKey(API_KEY).seed(13).start();
    client = clientFor(simulator.baseUrl());
  }

  @AfterEach
  void stop() {
    simulator.close();
  }

  private String create(String operationId) {
    CreateOutcome outcome =
        client.create(
            new CreateRequest(
                "image-v1", new ObjectMapper().createObjectNode().put("prompt", "x"), operationId));
    return ((CreateOutcome.Accepted) outcome).remoteJobId();
  }

  @Test
  void a_job_is_read_with_the_operation_id_it_carries_and_its_creation_time() {
    String id = create("op-look");

    RemoteJob job = client.lookUp(id).orElseThrow();

    assertThat(job.id()).isEqualTo(id);
    assertThat(job.operationId()).isEqualTo("op-look");
    assertThat(job.createdAt()).isNotBlank();
    assertThat(client.lookUp("gen_unknown")).isEmpty();
  }

  @Test
  void the_search_lists_the_operations_jobs_or_says_it_is_not_offered() {
    String id = create("op-find");
    create("op-other");

    Optional<List<RemoteJob>> found = client.search("op-find");
    simulator.setFaults(Faults.DEFAULT.withSearchEnabled(false));
    Optional<List<RemoteJob>> notOffered = client.search("op-find");

    assertThat(found)
        .hasValueSatisfying(jobs -> assertThat(jobs).extracting(RemoteJob::id).containsExactly(id));
    assertThat(notOffered).isEmpty();
  }
}
