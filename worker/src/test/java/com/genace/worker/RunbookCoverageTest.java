package com.genace.worker;

import static org.assertj.core.api.Assertions.assertThat;

import com.genace.client.model.ReviewReason;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * docs/runbook.md has a section for everything that asks something of a person: each {@link
 * ReviewReason}, each alert of deploy/prometheus (every rules file there, so an alert added later
 * needs its section too) and each ERROR log line in src/main (found by scanning the sources for
 * {@code .error(} calls and their message). Each section says what it means, what to look at first,
 * how to fix it and how to tell it is over.
 */
class RunbookCoverageTest {

  static final Path ROOT = Path.of("..");
  static final List<String> PARTS =
      List.of("**What it means.**", "**Look first.**", "**Fix.**", "**Over when.**");

  private static final Pattern HEADING = Pattern.compile("(?m)^(#{2,4}) (.+)$");
  private static final Pattern ALERT = Pattern.compile("(?m)^\\s*- alert: (\\S+)\\s*$");
  private static final Pattern RUNBOOK_URL =
      Pattern.compile("(?m)^\\s*runbook_url: docs/runbook\\.md#(\\S+)\\s*$");
  private static final Pattern ERROR_CALL = Pattern.compile("\\.error\\(");
  private static final Pattern LITERAL = Pattern.compile("\"((?:[^\"\\\\]|\\\\.)*)\"");

  @Test
  void every_review_reason_alert_and_error_log_line_has_a_runbook_section_with_all_its_parts()
      throws IOException {
    String runbook = Files.readString(ROOT.resolve("docs/runbook.md"));
    Map<String, String> sections = sections(runbook);
    List<String> missing = new ArrayList<>();

    for (ReviewReason reason : ReviewReason.values()) {
      check(sections, "review-" + reason.wire(), "review reason " + reason.wire(), missing);
    }

    for (Path rules : alertRuleFiles()) {
      String text = Files.readString(rules);
      Matcher alert = ALERT.matcher(text);
      List<String> alerts = new ArrayList<>();
      while (alert.find()) {
        alerts.add(alert.group(1));
      }
      Matcher url = RUNBOOK_URL.matcher(text);
      List<String> anchors = new ArrayList<>();
      while (url.find()) {
        anchors.add(url.group(1));
      }
      assertThat(anchors)
          .as("%s: every alert has annotations.runbook_url docs/runbook.md#alert-NAME", rules)
          .hasSameSizeAs(alerts);
      for (String name : alerts) {
        String anchor = "alert-" + name.toLowerCase(Locale.ROOT);
        assertThat(anchors).as("%s: the runbook_url of %s", rules, name).contains(anchor);
        check(sections, anchor, "alert " + name, missing);
      }
    }

    for (Map.Entry<String, String> site : errorLogSites().entrySet()) {
      String section = sectionQuoting(sections, "`" + site.getValue() + "`");
      if (section == null) {
        missing.add(
            "ERROR log line of " + site.getKey() + ": no section quotes `" + site.getValue() + "`");
      } else {
        checkParts(section, "ERROR log line of " + site.getKey(), missing);
      }
    }

    assertThat(missing).as("what docs/runbook.md lacks").isEmpty();
  }

  @Test
  void the_scan_finds_the_error_log_lines_of_the_sources() {
    assertThat(errorLogSites().values())
        .contains(
            "poll loop failed; going on",
            "operation {} needs review: {} ({}); evidence: {}",
            "could not open the dispatch circuit ({}) after operation {} was refused: {}");
  }

  private static void check(
      Map<String, String> sections, String anchor, String what, List<String> missing) {
    String section = sections.get(anchor);
    if (section == null) {
      missing.add(what + ": no section #" + anchor);
    } else {
      checkParts(section, what, missing);
    }
  }

  private static void checkParts(String section, String what, List<String> missing) {
    for (String part : PARTS) {
      if (!section.contains(part)) {
        missing.add(what + ": its section lacks " + part);
      }
    }
  }

  private static String sectionQuoting(Map<String, String> sections, String quote) {
    return sections.values().stream().filter(s -> s.contains(quote)).findFirst().orElse(null);
  }

  /** Each heading's anchor (GitHub's rule) with its text up to the next heading. */
  static Map<String, String> sections(String markdown) {
    Map<String, String> sections = new LinkedHashMap<>();
    Matcher heading = HEADING.matcher(markdown);
    List<int[]> starts = new ArrayList<>();
    List<String> anchors = new ArrayList<>();
    while (heading.find()) {
      starts.add(new int[] {heading.start(), heading.end()});
      anchors.add(anchor(heading.group(2)));
    }
    for (int i = 0; i < starts.size(); i++) {
      int end = i + 1 < starts.size() ? starts.get(i + 1)[0] : markdown.length();
      sections.put(anchors.get(i), markdown.substring(starts.get(i)[1], end));
    }
    return sections;
  }

  /** GitHub's heading anchor: lower case, punctuation but '-' and '_' dropped, spaces to '-'. */
  static String anchor(String heading) {
    return heading
        .toLowerCase(Locale.ROOT)
        .replaceAll("[^\\p{L}\\p{N} _-]", "")
        .trim()
        .replace(' ', '-');
  }

  private static List<Path> alertRuleFiles() throws IOException {
    try (Stream<Path> files = Files.list(ROOT.resolve("deploy/prometheus"))) {
      return files
          .filter(p -> p.toString().endsWith(".yml") || p.toString().endsWith(".yaml"))
          .filter(p -> !p.getFileName().toString().contains(".test."))
          .sorted()
          .toList();
    }
  }

  /**
   * Every {@code .error(} call in the modules' src/main whose arguments hold a message: the
   * message's format (its string literals joined), by file and line.
   */
  static Map<String, String> errorLogSites() {
    Map<String, String> sites = new LinkedHashMap<>();
    try (Stream<Path> files = Files.walk(ROOT)) {
      for (Path file :
          files
              .filter(p -> p.toString().endsWith(".java"))
              .filter(p -> p.toString().contains("/src/main/java/"))
              .filter(p -> !p.toString().contains("/target/"))
              .sorted()
              .toList()) {
        String source = Files.readString(file);
        Matcher call = ERROR_CALL.matcher(source);
        while (call.find()) {
          String format = format(arguments(source, call.end()));
          if (!format.isEmpty()) {
            int line = source.substring(0, call.start()).split("\n", -1).length;
            sites.put(ROOT.relativize(file) + ":" + line, format);
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return sites;
  }

  /** The first string literal of the arguments, with those joined to it by {@code +}. */
  private static String format(String arguments) {
    Matcher literal = LITERAL.matcher(arguments);
    if (!literal.find()) {
      return "";
    }
    StringBuilder format = new StringBuilder(literal.group(1));
    int at = literal.end();
    while (true) {
      String rest = arguments.substring(at).stripLeading();
      if (!rest.startsWith("+")) {
        break;
      }
      rest = rest.substring(1).stripLeading();
      Matcher next = LITERAL.matcher(rest);
      if (!next.lookingAt()) {
        break;
      }
      format.append(next.group(1));
      at = arguments.length() - rest.length() + next.end();
    }
    return format.toString().replace("\\\"", "\"");
  }

  /** The text of a call's arguments: up to the parenthesis that closes it. */
  private static String arguments(String source, int from) {
    int depth = 1;
    boolean inString = false;
    for (int i = from; i < source.length(); i++) {
      char c = source.charAt(i);
      if (inString) {
        if (c == '\\') {
          i++;
        } else if (c == '"') {
          inString = false;
        }
      } else if (c == '"') {
        inString = true;
      } else if (c == '(') {
        depth++;
      } else if (c == ')' && --depth == 0) {
        return source.substring(from, i);
      }
    }
    return source.substring(from);
  }
}
