package com.genace.ops.operations;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

class BulkSummaryTest {

  @Test
  void refusals_of_one_kind_count_together_whatever_their_operation_and_job() {
    BulkSummary summary = new BulkSummary("resolve not_submitted by alice", 4);

    summary.record(
        "op-1",
        new BulkOutcome.Refused(
            "not_submitted refused: the evidence shows 1 job on Genace carries this operation id:"
                + " gen_a (running, created 2026-12-05T03:00:00Z); resolve found_remote_job (or"
                + " abandon)"));
    summary.record(
        "op-2",
        new BulkOutcome.Refused(
            "not_submitted refused: the evidence shows 1 job on Genace carries this operation id:"
                + " gen_b (succeeded, created 2026-12-05T03:01:00Z); resolve found_remote_job (or"
                + " abandon)"));
    summary.record(
        "op-3", new BulkOutcome.Refused("operation op-3 is not in review (phase delivered)"));
    summary.record("op-4", new BulkOutcome.Skipped("no longer in_review (now abandoned)"));
    StringWriter text = new StringWriter();
    summary.print(new PrintWriter(text, true));

    assertThat(text.toString())
        .startsWith(
            "done: resolve not_submitted by alice: 4/4 done (0 applied, 3 refused, 1 skipped) in ")
        .contains(
            "\nrefused:\n"
                + "       2  not_submitted refused: the evidence shows 1 job on Genace carries this"
                + " operation id  (e.g. op-1, op-2)\n"
                + "       1  operation ID is not in review  (e.g. op-3)\n"
                + "skipped:\n"
                + "       1  no longer in_review (now abandoned)  (e.g. op-4)\n");
    assertThat(summary.json().get("refused").get(0).get("first").asText())
        .contains("gen_a (running");
    assertThat(summary.anyRefused()).isTrue();
  }

  @Test
  void failures_to_ask_count_as_refused_and_say_how_many_came_in_a_row() {
    BulkSummary summary = new BulkSummary("cancel by bob", 3);

    int first = summary.record("a", new BulkOutcome.Failed("UNAVAILABLE: io exception"));
    int second = summary.record("b", new BulkOutcome.Failed("UNAVAILABLE: io exception"));
    int after = summary.record("c", new BulkOutcome.Applied("cancelling from phase pending"));

    assertThat(first).isEqualTo(1);
    assertThat(second).isEqualTo(2);
    assertThat(after).isZero();
    assertThat(summary.progressLine()).contains("3/3 done (1 applied, 2 refused, 0 skipped)");
    assertThat(summary.json().get("refused").get(0).get("reason").asText())
        .isEqualTo("could not ask: UNAVAILABLE: io exception");
  }
}
