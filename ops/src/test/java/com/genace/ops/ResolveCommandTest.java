package com.genace.ops;

import static org.assertj.core.api.Assertions.assertThat;

import com.genace.activities.ledger.ClaimResult;
import com.genace.activities.ledger.Lease;
import com.genace.activities.ledger.NewOperation;
import com.genace.activities.ledger.OperationRow;
import com.genace.activities.testing.DatabaseExtension;
import com.genace.client.model.NextAction;
import com.genace.client.model.Phase;
import com.genace.ops.support.CliRunner;
import com.genace.ops.support.StackFixture;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

@ExtendWith(DatabaseExtension.class)
class ResolveCommandTest {

  @RegisterExtension static final StackFixture stack = new StackFixture();

  @Test
  void a_lost_post_response_is_resolved_with_the_job_found_on_genace_and_delivered() {
    OperationRow review = submitAndLosePostResponse("lost-1");
    List<String> jobs = stack.simulator().jobsForOperation("lost-1");

    CliRunner.Result result =
        CliRunner.run(
            stack.env(),
            "ops",
            "resolve",
            "lost-1",
            "--found-remote-job",
            jobs.get(0),
            "--reason",
            "seen on the Genace dashboard",
            "--by",
            "alice");

    assertThat(review.reviewReason()).contains("post_outcome_unknown");
    assertThat(result.exitCode()).as(result.err()).isZero();
    assertThat(result.out())
        .isEqualTo(
            "operation lost-1: accepted found_remote_job (remote job "
                + jobs.get(0)
                + ") by alice; next: observing\n");
    OperationRow delivered = stack.awaitPhase("lost-1", Phase.DELIVERED);
    assertThat(delivered.remoteJobId()).contains(jobs.get(0));
    assertThat(delivered.reviewResolvedBy()).contains("alice");
    assertThat(stack.simulator().stats().postsFor("lost-1")).isEqualTo(1);
  }

  @Test
  void not_submitted_dispatches_again_and_abandon_ends_the_operation() {
    submitAnsweredWith503("again");
    submitAndLosePostResponse("give-up");

    CliRunner.Result again =
        CliRunner.run(
            stack.env(), "ops", "resolve", "again", "--not-submitted", "--reason", "drill");
    CliRunner.Result abandon =
        CliRunner.run(
            stack.env(),
            "ops",
            "resolve",
            "give-up",
            "--abandon",
            "--reason",
            "customer cancelled",
            "--by",
            "bob");

    assertThat(again.exitCode()).as(again.err()).isZero();
    assertThat(again.out()).contains("accepted not_submitted").contains("next: pending");
    assertThat(abandon.exitCode()).as(abandon.err()).isZero();
    stack.awaitPhase("again", Phase.DELIVERED);
    assertThat(stack.simulator().stats().postsFor("again")).isEqualTo(2);
    assertThat(stack.awaitPhase("give-up", Phase.ABANDONED).failureReason())
        .contains("customer cancelled");
  }

  @Test
  void resolve_defaults_the_operator_to_user() {
    submitAndLosePostResponse("by-user");
    var env = new java.util.HashMap<>(stack.env());
    env.put("USER", "carol");

    CliRunner.Result result =
        CliRunner.run(env, "ops", "resolve", "by-user", "--abandon", "--reason", "test");

    assertThat(result.out()).contains(" by carol;");
    assertThat(stack.awaitPhase("by-user", Phase.ABANDONED).reviewResolvedBy()).contains("carol");
  }

  @Test
  void resolving_an_operation_that_is_not_in_review_exits_1_and_changes_nothing() {
    stack.ledger().create(new NewOperation("calm", "image-v1", "{}"));

    CliRunner.Result result =
        CliRunner.run(stack.env(), "ops", "resolve", "calm", "--abandon", "--reason", "oops");

    assertThat(result.exitCode()).isEqualTo(1);
    assertThat(result.err())
        .isEqualTo("genace: error: operation calm is not in review (phase pending)\n");
    assertThat(stack.ledger().get("calm").phase()).isEqualTo(Phase.PENDING);
  }

  @Test
  void resolving_an_unknown_operation_exits_1() {
    CliRunner.Result result =
        CliRunner.run(stack.env(), "ops", "resolve", "ghost", "--not-submitted", "--reason", "x");

    assertThat(result.exitCode()).isEqualTo(1);
    assertThat(result.err()).isEqualTo("genace: error: unknown operation 'ghost'\n");
  }

  @Test
  void a_review_without_a_workflow_is_reported_not_resolved() {
    stack.ledger().create(new NewOperation("orphan", "image-v1", "{}"));
    ClaimResult claim = stack.ledger().claim("orphan", "worker-x", NextAction.DISPATCH);
    Lease lease = ((ClaimResult.Acquired) claim).lease();
    stack.ledger().markSubmitting(lease);
    stack.ledger().openReview(lease, "post_outcome_unknown", "test");

    CliRunner.Result result =
        CliRunner.run(stack.env(), "ops", "resolve", "orphan", "--abandon", "--reason", "x");

    assertThat(result.exitCode()).isEqualTo(1);
    assertThat(result.err()).contains("operation orphan has no workflow on Temporal");
    assertThat(stack.ledger().get("orphan").phase()).isEqualTo(Phase.IN_REVIEW);
  }

  @Test
  void exactly_one_decision_is_required() {
    CliRunner.Result none =
        CliRunner.run(stack.env(), "ops", "resolve", "x", "--reason", "why not");
    CliRunner.Result two =
        CliRunner.run(
            stack.env(), "ops", "resolve", "x", "--abandon", "--not-submitted", "--reason", "r");

    assertThat(none.exitCode()).isEqualTo(2);
    assertThat(none.err())
        .contains("Missing required argument")
        .contains("Usage: genace ops resolve");
    assertThat(two.exitCode()).isEqualTo(2);
    assertThat(two.err()).contains("mutually exclusive");
  }

  @Test
  void a_reason_is_required() {
    CliRunner.Result result = CliRunner.run(stack.env(), "ops", "resolve", "x", "--abandon");

    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err()).contains("Missing required option: '--reason=TEXT'");
  }

  @Test
  void a_job_id_the_ledger_would_refuse_is_refused_and_a_valid_abandon_then_ends_the_review() {
    submitAndLosePostResponse("wedge");

    CliRunner.Result wedge =
        CliRunner.run(
            stack.env(),
            "ops",
            "resolve",
            "wedge",
            "--found-remote-job",
            "gen\n1",
            "--reason",
            "x");
    CliRunner.Result abandon =
        CliRunner.run(stack.env(), "ops", "resolve", "wedge", "--abandon", "--reason", "x");

    assertThat(wedge.exitCode()).isEqualTo(1);
    assertThat(wedge.err()).contains("remote job id must not contain control characters");
    assertThat(abandon.exitCode()).as(abandon.err()).isZero();
    assertThat(stack.awaitPhase("wedge", Phase.ABANDONED).reviewResolution()).contains("abandon");
  }

  @Test
  void list_and_show_start_the_review_with_its_evidence_and_show_refused_resolutions() {
    submitAndLosePostResponse("evident");
    String job = stack.simulator().jobsForOperation("evident").get(0);
    CliRunner.Result foreign =
        CliRunner.run(
            stack.env(),
            "ops",
            "resolve",
            "evident",
            "--found-remote-job",
            "gen_unknown",
            "--reason",
            "typo");

    CliRunner.Result list = CliRunner.run(stack.env(), "ops", "list", "--phase", "in_review");
    CliRunner.Result show = CliRunner.run(stack.env(), "ops", "show", "evident");

    assertThat(foreign.exitCode()).isEqualTo(1);
    assertThat(foreign.err()).contains("Genace does not know job gen_unknown");
    assertThat(list.exitCode()).as(list.err()).isZero();
    assertThat(list.out())
        .contains("evidence:")
        .contains("evident: 1 job on Genace carries this operation id: " + job);
    assertThat(show.exitCode()).as(show.err()).isZero();
    assertThat(show.out())
        .contains("evidence    1 job on Genace carries this operation id: " + job)
        .contains(job + "  ")
        .contains("operation evident  seen in search")
        .contains("refused     1 resolution(s)")
        .contains("Genace does not know job gen_unknown");
  }

  /** Submits through the CLI with the POST answered 503 (nothing created); waits for the review. */
  private void submitAnsweredWith503(String id) {
    stack.simulator().setFaults(stack.simulator().faults().withRate5xx(1.0));
    stack.submit(id);
    stack.awaitPhase(id, Phase.IN_REVIEW);
    stack.simulator().setFaults(stack.simulator().faults().withRate5xx(0));
    stack.awaitWorkflowPhase(id, Phase.IN_REVIEW);
  }

  /** Submits through the CLI with the next POST's response lost; waits for the review. */
  private OperationRow submitAndLosePostResponse(String id) {
    stack.simulator().setFaults(stack.simulator().faults().withLosePostResponseNext(1));
    stack.submit(id);
    stack.awaitWorkflowPhase(id, Phase.IN_REVIEW);
    return stack.awaitPhase(id, Phase.IN_REVIEW);
  }
}
