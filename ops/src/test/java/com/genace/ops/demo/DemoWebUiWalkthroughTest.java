package com.genace.ops.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class DemoWebUiWalkthroughTest {

  @Test
  void the_summary_ends_with_the_way_to_the_same_story_in_the_web_ui() {
    StringWriter text = new StringWriter();
    DemoCommand.printWebUiWalkthrough(new PrintWriter(text, true));
    List<String> lines = text.toString().lines().toList();

    assertThat(lines.get(1)).startsWith("  1. ./genace dev ");
    assertThat(lines.get(2)).startsWith("  2. ./genace worker ");
    assertThat(lines.get(3)).contains("\"lose_post_response_next\":1").contains("./genace submit");
    String page = lines.get(4).substring("  4. ".length()).split(" ")[0];
    URI uri = URI.create(page);
    assertThat(uri.getAuthority()).isEqualTo("127.0.0.1:8233");
    assertThat(uri.getPath()).isEqualTo("/namespaces/default/workflows");
    assertThat(URLDecoder.decode(uri.getRawQuery(), StandardCharsets.UTF_8))
        .isEqualTo("query=GenaceNeedsReview = true");
    assertThat(lines.get(4)).contains("Send a Signal (resolveReconciliation)");
  }
}
