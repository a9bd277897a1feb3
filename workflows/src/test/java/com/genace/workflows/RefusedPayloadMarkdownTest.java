package com.genace.workflows;

import static org.assertj.core.api.Assertions.assertThat;

import org.commonmark.node.Code;
import org.commonmark.node.Node;
import org.commonmark.node.Paragraph;
import org.commonmark.parser.Parser;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A refused resolution's payload is echoed in the Web UI's Markdown details: whatever it holds, a
 * CommonMark parser reads it as one code span whose text is the payload itself, so nothing in it
 * can become a link, an image or formatting.
 */
class RefusedPayloadMarkdownTest {

  private static final Parser MARKDOWN = Parser.builder().build();

  @ParameterizedTest
  @ValueSource(
      strings = {
        "{\"decision\":\"abandon\"}",
        "{\"reason\":\"a ` backtick\"}",
        "{\"reason\":\"`` x ``](javascript:alert(1)) [click](http://evil.example)\"}",
        "`{\"starts\":\"with a backtick\"}`",
        "{\"a\":\"```\"} ![img](http://evil.example/x.png) ``",
        "{\"two\":\n\n\"paragraphs\"}"
      })
  void the_payload_is_one_code_span_holding_exactly_the_payload(String payload) {
    Node document = MARKDOWN.parse("refused " + ResolutionInbox.codeSpan(payload) + ": why");

    Node paragraph = document.getFirstChild();
    assertThat(paragraph).isInstanceOf(Paragraph.class);
    assertThat(paragraph.getNext()).as("one paragraph").isNull();
    Node code = paragraph.getFirstChild().getNext();
    assertThat(code).isInstanceOf(Code.class);
    assertThat(((Code) code).getLiteral()).isEqualTo(payload.replaceAll("[\\r\\n]+", " "));
    assertThat(code.getNext().getNext()).as("nothing after ': why'").isNull();
  }
}
