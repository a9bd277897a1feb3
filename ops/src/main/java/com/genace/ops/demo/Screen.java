package com.genace.ops.demo;

import java.io.PrintWriter;

/**
 * Where the demo tells its story: events as lines, and one status line that a terminal rewrites in
 * place ({@code \r}) and any other output gets as a plain line at most once per interval.
 */
final class Screen {

  private static final String CLEAR_LINE = "\r\033[K";

  private final PrintWriter out;
  private final boolean terminal;
  private final long plainIntervalNanos;
  private String status = "";
  private long lastPlainStatus;

  /**
   * @param terminal rewrite the status line in place; otherwise print it as a line every {@code
   *     plainIntervalMillis}
   */
  Screen(PrintWriter out, boolean terminal, long plainIntervalMillis) {
    this.out = out;
    this.terminal = terminal;
    this.plainIntervalNanos = plainIntervalMillis * 1_000_000;
    this.lastPlainStatus = System.nanoTime() - plainIntervalNanos;
  }

  /** A line of the story; on a terminal it appears above the status line. */
  synchronized void event(String line) {
    if (terminal && !status.isEmpty()) {
      out.print(CLEAR_LINE);
      out.println(line);
      out.print(status);
    } else {
      out.println(line);
    }
    out.flush();
  }

  /** The current status; {@code force} prints it even before the interval (plain output). */
  synchronized void status(String line, boolean force) {
    if (terminal) {
      status = line;
      out.print(CLEAR_LINE + line);
      out.flush();
      return;
    }
    long now = System.nanoTime();
    if (force || now - lastPlainStatus >= plainIntervalNanos) {
      lastPlainStatus = now;
      out.println(line);
      out.flush();
    }
  }

  /** Ends the status line so that what follows starts on a line of its own. */
  synchronized void finish() {
    if (terminal && !status.isEmpty()) {
      out.println();
      status = "";
      out.flush();
    }
  }
}
