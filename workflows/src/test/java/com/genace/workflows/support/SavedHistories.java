package com.genace.workflows.support;

import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;

/**
 * The generation workflow's saved histories ({@code src/test/resources/histories}), recorded by the
 * worker module's end-to-end tests: replayed against the current code and held to the current
 * activity options.
 */
public final class SavedHistories {

  private SavedHistories() {}

  /** Every saved history, by file name. */
  public static List<Path> all() throws IOException, URISyntaxException {
    Path directory = Path.of(SavedHistories.class.getResource("/histories").toURI());
    try (Stream<Path> files = Files.list(directory)) {
      return files.filter(SavedHistories::isHistory).sorted().toList();
    }
  }

  /** A saved history's file: JSON, or JSON compressed. */
  public static boolean isHistory(Path file) {
    String name = file.getFileName().toString();
    return name.endsWith(".json") || name.endsWith(".json.gz");
  }

  /** A run that continued as new is saved compressed: it holds about 2,000 events. */
  public static String read(Path history) throws IOException {
    if (!history.toString().endsWith(".gz")) {
      return Files.readString(history);
    }
    try (InputStream in = new GZIPInputStream(Files.newInputStream(history))) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
