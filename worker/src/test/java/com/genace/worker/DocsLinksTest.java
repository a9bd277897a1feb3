package com.genace.worker;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every relative link of the README and of docs/ (its pages and their folders) names a file or
 * folder that exists, so that a class moved or renamed takes its links in the docs along (the code
 * map of docs/architecture.md links a file for each rule). Links to other sites and to a heading of
 * the same page are not followed; a link's heading ({@code #...}) is not checked, only its file.
 * Code (fenced blocks and {@code `spans`}) holds examples, not links, and is skipped.
 */
class DocsLinksTest {

  private static final Path ROOT = Path.of("..");

  /** {@code [text](target)} and {@code ![alt](target "title")}. */
  private static final Pattern INLINE =
      Pattern.compile("!?\\[[^\\]]*\\]\\(([^)\\s]+)(?:\\s+\"[^\"]*\")?\\)");

  /** {@code [label]: target}, a reference definition. */
  private static final Pattern REFERENCE = Pattern.compile("(?m)^\\s*\\[[^\\]]+\\]:\\s*(\\S+)");

  private static final Pattern FENCED = Pattern.compile("(?ms)^(```|~~~).*?^\\1[^\\n]*$");
  private static final Pattern CODE_SPAN = Pattern.compile("`[^`\\n]*`");
  private static final Pattern SCHEME = Pattern.compile("^[a-zA-Z][a-zA-Z0-9+.-]*:");

  @Test
  void every_relative_link_in_the_docs_names_a_file_that_exists() throws IOException {
    List<String> broken = new ArrayList<>();
    int checked = 0;
    int toSources = 0;
    for (Path page : pages()) {
      for (String target : relativeLinks(Files.readString(page))) {
        String path = target.replaceFirst("[#?].*$", "");
        checked++;
        if (path.contains("/src/main/")) {
          toSources++;
        }
        if (!Files.exists(page.getParent().resolve(path).normalize())) {
          broken.add(ROOT.relativize(page) + ": " + target);
        }
      }
    }

    assertThat(broken).as("links to files that do not exist").isEmpty();
    assertThat(checked).as("relative links checked").isGreaterThan(100);
    assertThat(toSources).as("links into the sources (the code map)").isGreaterThan(10);
  }

  @Test
  void code_and_other_sites_are_not_taken_for_links() {
    String page =
        """
        See [the ledger](ledger.md#leases), [Temporal](https://temporal.io) and [below](#x).
        `[not a link](nowhere.md)`

        ```
        [nor this](nowhere-either.md)
        ```
        [ref]: ../worker/pom.xml
        """;

    assertThat(relativeLinks(page)).containsExactly("ledger.md#leases", "../worker/pom.xml");
  }

  /** README.md and every page under docs/. */
  private static List<Path> pages() throws IOException {
    List<Path> pages = new ArrayList<>();
    pages.add(ROOT.resolve("README.md"));
    try (Stream<Path> docs = Files.walk(ROOT.resolve("docs"))) {
      docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
    }
    return pages;
  }

  /** The link targets of {@code markdown} that are neither another site nor this page's. */
  static List<String> relativeLinks(String markdown) {
    String text = CODE_SPAN.matcher(FENCED.matcher(markdown).replaceAll("")).replaceAll("");
    List<String> links = new ArrayList<>();
    for (Pattern pattern : List.of(INLINE, REFERENCE)) {
      Matcher link = pattern.matcher(text);
      while (link.find()) {
        String target = link.group(1);
        if (!target.startsWith("#") && !SCHEME.matcher(target).find()) {
          links.add(target);
        }
      }
    }
    return links;
  }
}
