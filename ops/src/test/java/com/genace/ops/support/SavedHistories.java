package com.genace.ops.support;

import io.temporal.common.WorkflowExecutionHistory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The generation workflow's saved histories, recorded by the worker's tests and replayed by the
 * workflows module ({@code workflows/src/test/resources/histories}): what the figures of a real
 * operation's course are read from.
 */
public final class SavedHistories {

  private static final Path DIRECTORY =
      Path.of("..", "workflows", "src", "test", "resources", "histories");

  private SavedHistories() {}

  /** The saved history {@code name} (such as {@code delivered.json}). */
  public static WorkflowExecutionHistory saved(String name) {
    try {
      return WorkflowExecutionHistory.fromJson(Files.readString(DIRECTORY.resolve(name)));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the saved history " + name, e);
    }
  }
}
