package com.genace.worker.support;

import com.genace.activities.testing.TestDatabase;
import java.net.URI;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/** The environment a {@code WorkerProcess} under test is configured from. */
public final class TestEnvironment {

  private TestEnvironment() {}

  /**
   * A worker on the shared test database, speaking to Genace at {@code genace} with {@link
   * GenerationHarness#API_KEY}, delivering into {@code artifacts}, its status endpoints on a free
   * loopback port. A new map each time, for the test to add to.
   */
  public static Map<String, String> worker(URI genace, Path artifacts) {
    Map<String, String> env = new HashMap<>();
    env.put("DATABASE_URL", TestDatabase.databaseUrlValue());
    env.put("GENACE_BASE_URL", genace.toString());
    env.put("GENACE_API_KEY", GenerationHarness.API_KEY);
    env.put("GENACE_ARTIFACT_DIR", artifacts.toString());
    env.put("GENACE_STATUS_ADDR", "127.0.0.1:0");
    return env;
  }
}
