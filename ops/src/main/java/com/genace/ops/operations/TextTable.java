package com.genace.ops.operations;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/** A plain-text table with left-aligned columns sized to their widest cell. */
final class TextTable {

  private final List<String[]> rows = new ArrayList<>();
  private final int columns;

  TextTable(String... headers) {
    this.columns = headers.length;
    rows.add(headers);
  }

  TextTable row(String... cells) {
    if (cells.length != columns) {
      throw new IllegalArgumentException("expected " + columns + " cells, got " + cells.length);
    }
    rows.add(cells);
    return this;
  }

  void print(PrintWriter out) {
    int[] widths = new int[columns];
    for (String[] row : rows) {
      for (int i = 0; i < columns; i++) {
        widths[i] = Math.max(widths[i], row[i].length());
      }
    }
    for (String[] row : rows) {
      StringBuilder line = new StringBuilder();
      for (int i = 0; i < columns; i++) {
        line.append(i == columns - 1 ? row[i] : pad(row[i], widths[i] + 2));
      }
      out.println(line.toString().stripTrailing());
    }
  }

  private static String pad(String cell, int width) {
    return cell + " ".repeat(width - cell.length());
  }
}
