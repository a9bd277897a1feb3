package com.genace.activities.db;

import static org.assertj.core.api.Assertions.assertThat;

import com.genace.activities.testing.ScratchDatabase;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.MigrationInfo;
import org.flywaydb.core.api.MigrationVersion;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What a release shipped stays as it was applied. Each release records its migrations in {@code
 * release/<version>/migrations.tsv} (version, script, Flyway checksum); a ledger that release
 * migrated keeps validating and migrating only while, in the current scripts:
 *
 * <ol>
 *   <li>every released script is there with the same checksum (Flyway refuses a changed one);
 *   <li>no script is new below the newest released version (Flyway refuses to apply one there);
 *   <li>a ledger at the newest released version migrates to the current schema.
 * </ol>
 *
 * <p>A new release's manifest is written by this test with {@code
 * -Dgenace.recordRelease=<repository>/release/<version>} (docs/upgrading.md).
 */
class ReleasedMigrationsTest {

  private static final String MANIFEST = "migrations.tsv";

  /** The current scripts, by version: what Flyway resolves from {@code db/migration}. */
  private static Map<String, Script> current;

  /** A script and its checksum; a Java migration has none ({@code -} in the manifest). */
  record Script(String version, String script, Integer checksum) {
    String line() {
      return version + "\t" + script + "\t" + (checksum == null ? "-" : checksum);
    }
  }

  record Release(String version, Path directory, List<Script> migrations) {
    @Override
    public String toString() {
      return version;
    }

    MigrationVersion newest() {
      return migrations.stream()
          .map(s -> MigrationVersion.fromVersion(s.version()))
          .max(MigrationVersion::compareTo)
          .orElseThrow();
    }
  }

  @BeforeAll
  static void resolveTheCurrentScripts() throws IOException {
    current = new LinkedHashMap<>();
    try (ScratchDatabase empty = ScratchDatabase.create("released_migrations")) {
      // Nothing applied: every script is pending and carries the checksum Flyway resolved.
      for (MigrationInfo info : flyway(empty.url(), null).info().all()) {
        Script script =
            new Script(info.getVersion().getVersion(), info.getScript(), info.getChecksum());
        current.put(script.version(), script);
      }
    }
    String record = System.getProperty("genace.recordRelease");
    if (record != null) {
      Path manifest = Files.createDirectories(Path.of(record)).resolve(MANIFEST);
      List<String> lines = new ArrayList<>(List.of("# version\tscript\tflyway checksum"));
      current.values().forEach(s -> lines.add(s.line()));
      Files.write(manifest, lines);
    }
  }

  static List<Release> releases() throws IOException {
    Path root = Path.of(System.getProperty("basedir", ".")).resolve("../release").normalize();
    List<Release> releases = new ArrayList<>();
    try (Stream<Path> directories = Files.list(root)) {
      for (Path directory : directories.sorted().toList()) {
        List<Script> migrations =
            Files.readAllLines(directory.resolve(MANIFEST)).stream()
                .filter(line -> !line.isBlank() && !line.startsWith("#"))
                .map(line -> line.split("\t"))
                .map(f -> new Script(f[0], f[1], f[2].equals("-") ? null : Integer.valueOf(f[2])))
                .toList();
        releases.add(new Release(directory.getFileName().toString(), directory, migrations));
      }
    }
    return releases;
  }

  @Test
  void there_is_a_released_manifest() throws IOException {
    assertThat(releases()).extracting(Release::version).contains("0.1.0");
    assertThat(releases()).allSatisfy(r -> assertThat(r.migrations()).isNotEmpty());
  }

  @ParameterizedTest(name = "release {0}")
  @MethodSource("releases")
  void every_released_migration_is_still_there_with_its_checksum(Release release) {
    assertThat(release.migrations())
        .allSatisfy(
            released ->
                assertThat(current.get(released.version()))
                    .as(
                        "V%s as %s shipped it: a released migration is never edited, renamed or"
                            + " removed (add a new one above it)",
                        released.version(), release.version())
                    .isEqualTo(released));
  }

  @ParameterizedTest(name = "release {0}")
  @MethodSource("releases")
  void every_new_migration_sorts_above_the_newest_released_one(Release release) {
    List<String> released = release.migrations().stream().map(Script::version).toList();
    MigrationVersion newest = release.newest();

    assertThat(current.values())
        .filteredOn(s -> !released.contains(s.version()))
        .allSatisfy(
            added ->
                assertThat(MigrationVersion.fromVersion(added.version()))
                    .as(
                        "%s is new since %s: a ledger of that release is at V%s and never applies"
                            + " a script below it",
                        added.script(), release.version(), newest.getVersion())
                    .isGreaterThan(newest));
  }

  @ParameterizedTest(name = "release {0}")
  @MethodSource("releases")
  void a_ledger_at_the_release_validates_and_migrates_to_the_current_schema(Release release) {
    try (ScratchDatabase ledger = ScratchDatabase.create("upgrade_ledger")) {
      flyway(ledger.url(), release.newest()).migrate();

      Flyway now = flyway(ledger.url(), null);
      // What migrate validates first: the applied scripts against the current ones; the new
      // scripts above them are pending, which is what an upgrade applies.
      var validation =
          Flyway.configure()
              .configuration(now.getConfiguration())
              .ignoreMigrationPatterns("*:pending")
              .load()
              .validateWithResult();
      assertThat(validation.validationSuccessful).as(validation.getAllErrorMessages()).isTrue();
      now.migrate();
      assertThat(now.info().pending()).isEmpty();
    }
  }

  private static Flyway flyway(DatabaseUrl url, MigrationVersion target) {
    var configuration =
        Flyway.configure()
            // As Migrations runs them: a concurrent index build would wait for ever on a lock
            // that Flyway holds in a transaction.
            .configuration(Map.of("flyway.postgresql.transactional.lock", "false"))
            .dataSource(url.jdbcUrl(), url.user().orElse(null), url.password().orElse(null))
            .locations(Migrations.LOCATION);
    if (target != null) {
      configuration.target(target);
    }
    return configuration.load();
  }
}
