package com.genace.ops.faults.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a drill found, on one line: operations, duplicate POSTs (beyond the first, an operator's
 * "not submitted" and a 429 answer), lost operations, stale writes the fence denied and applied,
 * and seconds from the end of the fault until everything settled; plus the reviews opened and
 * figures of the drill's own.
 *
 * @param problems every duplicate, lost operation and applied stale write, in words
 */
public record DrillFigures(
    String drill,
    long seed,
    int operations,
    long duplicatePosts,
    int lost,
    long staleWritesDenied,
    int staleWritesApplied,
    double settleSeconds,
    Map<String, String> extra,
    List<String> problems) {

  public static final Path FIGURES_FILE = Path.of("target", "fault-drills", "figures.txt");

  public DrillFigures {
    extra = new TreeMap<>(extra);
  }

  /** A figure of the drill's own, as a number (for the drill's own assertions). */
  public long figure(String name) {
    return Long.parseLong(extra.get(name));
  }

  /** These figures with one more of the drill's own. */
  public DrillFigures with(String name, Object value) {
    Map<String, String> more = new TreeMap<>(extra);
    more.put(name, String.valueOf(value));
    return new DrillFigures(
        drill,
        seed,
        operations,
        duplicatePosts,
        lost,
        staleWritesDenied,
        staleWritesApplied,
        settleSeconds,
        more,
        problems);
  }

  public String line() {
    StringBuilder line =
        new StringBuilder(
            String.format(
                java.util.Locale.ROOT,
                "drill %s: operations=%d duplicate_posts=%d lost=%d stale_writes_denied=%d"
                    + " stale_writes_applied=%d settle_s=%.1f",
                drill,
                operations,
                duplicatePosts,
                lost,
                staleWritesDenied,
                staleWritesApplied,
                settleSeconds));
    extra.forEach((name, value) -> line.append(' ').append(name).append('=').append(value));
    return line.append(" seed=").append(seed).toString();
  }

  /**
   * Prints the line (and appends it to {@link #FIGURES_FILE}), then asserts the invariants: no
   * duplicate POST, nothing lost, no stale write applied.
   */
  public DrillFigures report() {
    System.out.println(line());
    try {
      Files.createDirectories(FIGURES_FILE.getParent());
      Files.writeString(
          FIGURES_FILE,
          line() + System.lineSeparator(),
          StandardOpenOption.CREATE,
          StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    String why = line() + "\n" + String.join("\n", problems);
    assertThat(duplicatePosts).as("duplicate POSTs; " + why).isZero();
    assertThat(lost).as("lost operations; " + why).isZero();
    assertThat(staleWritesApplied).as("stale writes applied; " + why).isZero();
    assertThat(operations).as("operations; " + why).isPositive();
    return this;
  }
}
