package com.genace.activities.db;

import static org.assertj.core.api.Assertions.assertThat;

import com.genace.activities.db.support.MigrationRules;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The build-time guard: every migration script, and every test fixture shaped like one, keeps
 * {@link MigrationRules}.
 */
class MigrationScriptsTest {

  @Test
  void every_migration_is_safe_on_a_live_ledger() throws Exception {
    List<Path> scripts = scripts("db/migration");

    assertThat(scripts.stream().map(MigrationRules.Script::read).flatMap(this::violations))
        .isEmpty();
    assertThat(scripts).hasSizeGreaterThanOrEqualTo(12);
  }

  @Test
  void the_fixtures_of_the_live_migration_tests_keep_the_same_rules() throws Exception {
    List<Path> scripts =
        Stream.concat(
                scripts("db/fixture/live-change").stream(),
                scripts("db/fixture/failing-index").stream())
            .toList();

    assertThat(scripts).hasSize(4);
    assertThat(scripts.stream().map(MigrationRules.Script::read).flatMap(this::violations))
        .isEmpty();
  }

  @Test
  void every_script_is_named_as_flyway_reads_it_and_every_conf_belongs_to_a_script()
      throws Exception {
    Path directory = directory("db/migration");
    try (Stream<Path> files = Files.list(directory)) {
      assertThat(files.map(f -> f.getFileName().toString()))
          .allSatisfy(
              name -> {
                // A Java migration (a batched backfill) is a class in Flyway's package,
                // db.migration.
                assertThat(name)
                    .matches(
                        "V[0-9]+(_[0-9]+)?__([a-z0-9_]+\\.sql(\\.conf)?|[A-Z][a-z0-9_]+\\.class)");
                if (name.endsWith(".conf")) {
                  assertThat(directory.resolve(name.substring(0, name.length() - 5))).exists();
                }
              });
    }
  }

  private Stream<String> violations(MigrationRules.Script script) {
    return MigrationRules.violations(script).stream();
  }

  private static List<Path> scripts(String location) throws IOException, URISyntaxException {
    try (Stream<Path> files = Files.list(directory(location))) {
      return files.filter(f -> f.getFileName().toString().endsWith(".sql")).sorted().toList();
    }
  }

  private static Path directory(String location) throws URISyntaxException {
    return Path.of(MigrationScriptsTest.class.getClassLoader().getResource(location).toURI());
  }
}
