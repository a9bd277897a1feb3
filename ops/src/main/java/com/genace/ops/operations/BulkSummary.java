package com.genace.ops.operations;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The running tally of a bulk command, shared by its threads: applied, refused by reason, skipped
 * by why; the progress line and the summary at the end.
 */
final class BulkSummary {

  /** Operations named under each reason in the summary. */
  static final int EXAMPLES = 3;

  private final String verb;
  private final long selected;
  private final long startedNanos = System.nanoTime();
  private long applied;
  private final Map<String, Group> refused = new LinkedHashMap<>();
  private final Map<String, Group> skipped = new LinkedHashMap<>();
  private int failuresInARow;
  private boolean interrupted;
  private String stoppedBecause;

  BulkSummary(String verb, long selected) {
    this.verb = verb;
    this.selected = selected;
  }

  /** Counts one outcome; returns how many failures (not refusals) came in a row. */
  synchronized int record(String operationId, BulkOutcome outcome) {
    if (outcome instanceof BulkOutcome.Applied) {
      applied++;
      failuresInARow = 0;
    } else if (outcome instanceof BulkOutcome.Refused r) {
      add(refused, reasonKey(r.reason(), operationId), r.reason(), operationId);
      failuresInARow = 0;
    } else if (outcome instanceof BulkOutcome.Skipped s) {
      add(skipped, s.why(), s.why(), operationId);
    } else if (outcome instanceof BulkOutcome.Failed f) {
      add(refused, "could not ask: " + reasonKey(f.error(), operationId), f.error(), operationId);
      failuresInARow++;
    }
    return failuresInARow;
  }

  synchronized void interrupted() {
    interrupted = true;
  }

  synchronized void stop(String because) {
    stoppedBecause = because;
  }

  synchronized long done() {
    return applied + count(refused) + count(skipped);
  }

  synchronized boolean anyRefused() {
    return !refused.isEmpty();
  }

  synchronized boolean wasInterrupted() {
    return interrupted;
  }

  synchronized boolean stopped() {
    return stoppedBecause != null;
  }

  synchronized String progressLine() {
    double seconds = elapsed().toMillis() / 1000.0;
    long done = done();
    return String.format(
        Locale.ROOT,
        "%s: %d/%d done (%d applied, %d refused, %d skipped) in %.1f s, %.1f/s",
        verb,
        done,
        selected,
        applied,
        count(refused),
        count(skipped),
        seconds,
        seconds > 0 ? done / seconds : 0.0);
  }

  synchronized void print(PrintWriter out) {
    String head =
        interrupted
            ? "interrupted: "
            : stoppedBecause != null ? "stopped (" + stoppedBecause + "): " : "done: ";
    out.println(head + progressLine());
    print(out, "refused", refused);
    print(out, "skipped", skipped);
    if (interrupted || stoppedBecause != null) {
      out.println(
          "run the same command again to go on: what was done no longer matches and is left out");
    }
  }

  synchronized ObjectNode json() {
    ObjectNode json = OperationJson.JSON.createObjectNode();
    json.put("dry_run", false);
    json.put("selected", selected);
    json.put("applied", applied);
    json.set("refused", groups(refused));
    json.set("skipped", groups(skipped));
    json.put("interrupted", interrupted);
    json.put("stopped", stoppedBecause);
    json.put("elapsed_ms", elapsed().toMillis());
    return json;
  }

  private static void print(PrintWriter out, String title, Map<String, Group> groups) {
    if (groups.isEmpty()) {
      return;
    }
    out.println(title + ":");
    groups.forEach(
        (key, group) ->
            out.println(
                String.format(Locale.ROOT, "  %6d  %s", group.count, key)
                    + "  (e.g. "
                    + String.join(", ", group.examples)
                    + ")"));
  }

  private static ArrayNode groups(Map<String, Group> groups) {
    ArrayNode array = OperationJson.JSON.createArrayNode();
    groups.forEach(
        (key, group) -> {
          ObjectNode node = array.addObject();
          node.put("reason", key);
          node.put("count", group.count);
          node.put("first", group.first);
          group.examples.forEach(node.putArray("operations")::add);
        });
    return array;
  }

  private static long count(Map<String, Group> groups) {
    return groups.values().stream().mapToLong(g -> g.count).sum();
  }

  private static void add(Map<String, Group> groups, String key, String full, String operationId) {
    Group group = groups.computeIfAbsent(key, k -> new Group(full));
    group.count++;
    if (group.examples.size() < EXAMPLES) {
      group.examples.add(operationId);
    }
  }

  private Duration elapsed() {
    return Duration.ofNanos(System.nanoTime() - startedNanos);
  }

  private static final Pattern CUT = Pattern.compile(";| \\(");

  /**
   * What refusals have in common, to count them together: the operation's id left out, up to the
   * first {@code ;} or parenthesis and at most two {@code :}-separated parts. {@code not_submitted
   * refused: the evidence shows 1 job on Genace carries this operation id: gen_...; resolve
   * found_remote_job} counts as {@code not_submitted refused: the evidence shows 1 job on Genace
   * carries this operation id}. The first refusal's full text is kept beside it.
   */
  static String reasonKey(String reason, String operationId) {
    String key = reason == null ? "no reason given" : reason.replace(operationId, "ID");
    key = CUT.split(key, 2)[0];
    String[] parts = key.split(": ", 3);
    return parts.length > 2 ? parts[0] + ": " + parts[1] : key;
  }

  private static final class Group {
    final String first;
    long count;
    final List<String> examples = new ArrayList<>();

    Group(String first) {
      this.first = first;
    }
  }
}
