package com.genace.activities.genace;

import static com.genace.activities.genace.support.ClientTestSupport.API_KEY;
import static com.genace.activities.genace.support.ClientTestSupport.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.genace.testkit.simulator.GenaceSimulator;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Each Genace call is one client span that names the route and carries no secret. */
class ClientSpansTest {

  private final InMemorySpanExporter exporter = InMemorySpanExporter.create();
  private final OpenTelemetrySdk sdk =
      OpenTelemetrySdk.builder()
          .setTracerProvider(
              SdkTracerProvider.builder()
                  .addSpanProcessor(SimpleSpanProcessor.create(exporter))
                  .build())
          .build();

  @AfterEach
  void tearDown() {
    sdk.close();
  }

  private HttpGenaceClient client(URI baseUrl) {
    return new HttpGenaceClient(
        GenaceClientConfig.of(baseUrl, API_KEY)
            .withTimeouts(Duration.ofSeconds(2), Duration.ofSeconds(5)),
        sdk);
  }

  @Test
  void a_create_and_a_read_are_client_spans_named_by_method_and_route() {
    try (GenaceSimulator simulator = GenaceSimulator.builder().apiKey(API_KEY).start()) {
      HttpGenaceClient client = client(simulator.baseUrl());
      CreateOutcome.Accepted accepted = (CreateOutcome.Accepted) client.create(request("op-span"));
      client.get(accepted.remoteJobId());
    }

    List<SpanData> spans = exporter.getFinishedSpanItems();
    assertThat(spans)
        .extracting(SpanData::getName)
        .containsExactly("genace POST /v1/generations", "genace GET /v1/generations/{id}");
    SpanData post = spans.get(0);
    assertThat(post.getKind()).isEqualTo(SpanKind.CLIENT);
    assertThat(post.getAttributes().get(HttpSpans.METHOD)).isEqualTo("POST");
    assertThat(post.getAttributes().get(HttpSpans.STATUS)).isEqualTo(201L);
    assertThat(post.getAttributes().get(HttpSpans.OPERATION_ID)).isEqualTo("op-span");
    assertThat(post.getAttributes().get(HttpSpans.OUTCOME)).isEqualTo("Accepted");
    assertThat(post.getAttributes().get(HttpSpans.SERVER)).isEqualTo("127.0.0.1");
    assertThat(post.getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);
    SpanData get = spans.get(1);
    assertThat(get.getAttributes().get(HttpSpans.STATUS)).isEqualTo(200L);
    assertThat(get.getAttributes().get(HttpSpans.REMOTE_JOB_ID)).startsWith("gen");
    assertNoSecret(spans);
  }

  @Test
  void a_refused_create_and_a_failed_read_are_errors_without_the_key() {
    try (GenaceSimulator simulator = GenaceSimulator.builder().apiKey("sk-other").start()) {
      HttpGenaceClient client = client(simulator.baseUrl());
      assertThat(client.create(request("op-refused")))
          .isInstanceOf(CreateOutcome.AccountRefused.class);
      assertThat(catchThrowable(client::listModels))
          .isInstanceOf(GenaceAuthenticationException.class);
    }

    List<SpanData> spans = exporter.getFinishedSpanItems();
    assertThat(spans)
        .extracting(SpanData::getName)
        .containsExactly("genace POST /v1/generations", "genace GET /v1/models");
    assertThat(spans)
        .allSatisfy(
            span -> {
              assertThat(span.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
              assertThat(span.getAttributes().get(HttpSpans.STATUS)).isEqualTo(401L);
            });
    assertThat(spans.get(0).getAttributes().get(HttpSpans.OUTCOME)).isEqualTo("AccountRefused");
    assertThat(spans.get(1).getAttributes().get(HttpSpans.ERROR_TYPE))
        .isEqualTo(GenaceAuthenticationException.class.getName());
    assertNoSecret(spans);
  }

  @Test
  void a_create_that_never_connected_is_an_error_span_without_a_status() {
    client(URI.create("http://127.0.0.1:1")).create(request("op-nobody"));

    SpanData post = exporter.getFinishedSpanItems().get(0);
    assertThat(post.getAttributes().get(HttpSpans.STATUS)).isNull();
    assertThat(post.getAttributes().get(HttpSpans.OUTCOME)).isEqualTo("NotSent");
    assertThat(post.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
  }

  private static void assertNoSecret(List<SpanData> spans) {
    assertThat(spans)
        .allSatisfy(
            span ->
                span.getAttributes()
                    .forEach((key, value) -> assertThat(value.toString()).doesNotContain(API_KEY)));
  }
}
