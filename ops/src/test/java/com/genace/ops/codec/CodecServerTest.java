package com.genace.ops.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.genace.client.connection.PayloadKeys;
import com.genace.ops.Environment;
import com.genace.ops.GenaceCli;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The codec server over real HTTP, as the Web UI and {@code temporal --codec-endpoint} call it. */
class CodecServerTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String UI = "http://127.0.0.1:8233";
  private static final String KEY_A = "a:" + Base64.getEncoder().encodeToString(new byte[32]);
  private static final String KEY_B =
      "b:" + Base64.getEncoder().encodeToString("0123456789abcdef0123456789abcdef".getBytes());

  /** A JSON payload holding {@code "a red fox"}, in protobuf's JSON form. */
  private static final String PLAIN =
      "{\"payloads\":[{\"metadata\":{\"encoding\":\""
          + base64("json/plain")
          + "\"},\"data\":\""
          + base64("{\"prompt\":\"a red fox\"}")
          + "\"}]}";

  private final HttpClient http = HttpClient.newHttpClient();
  private CodecServer server;

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
  }

  @Test
  void encodesThenDecodesWhatTheWebUiSends() throws Exception {
    server = start(KEY_A, Optional.empty());

    HttpResponse<String> encoded = post("/encode", PLAIN, Map.of());
    assertThat(encoded.statusCode()).isEqualTo(200);
    JsonNode sealed = JSON.readTree(encoded.body()).get("payloads").get(0);
    assertThat(text(sealed.get("metadata").get("encoding"))).isEqualTo("binary/encrypted");
    assertThat(text(sealed.get("metadata").get("encryption-key-id"))).isEqualTo("a");
    assertThat(encoded.body()).doesNotContain(base64("{\"prompt\":\"a red fox\"}"));

    HttpResponse<String> decoded = post("/decode", encoded.body(), Map.of());
    assertThat(decoded.statusCode()).isEqualTo(200);
    JsonNode payload = JSON.readTree(decoded.body()).get("payloads").get(0);
    assertThat(text(payload.get("data"))).isEqualTo("{\"prompt\":\"a red fox\"}");
    assertThat(text(payload.get("metadata").get("encoding"))).isEqualTo("json/plain");
  }

  @Test
  void aKeyItDoesNotHoldIsRefusedByItsIdAndAClearPayloadPassesThrough() throws Exception {
    CodecServer other = start(KEY_B, Optional.empty());
    String sealedByB;
    try {
      sealedByB = post(other, "/encode", PLAIN, Map.of()).body();
    } finally {
      other.close();
    }
    server = start(KEY_A, Optional.empty());

    HttpResponse<String> refused = post("/decode", sealedByB, Map.of());
    assertThat(refused.statusCode()).isEqualTo(422);
    assertThat(JSON.readTree(refused.body()).get("error").asText()).contains("key 'b'");

    HttpResponse<String> clear = post("/decode", PLAIN, Map.of());
    assertThat(clear.statusCode()).isEqualTo(200);
    assertThat(JSON.readTree(clear.body())).isEqualTo(JSON.readTree(PLAIN));
  }

  @Test
  void withATokenEveryCallButThePreflightNeedsIt() throws Exception {
    server = start(KEY_A, Optional.of("s3cret"));

    HttpResponse<String> anonymous = post("/decode", PLAIN, Map.of());
    assertThat(anonymous.statusCode()).isEqualTo(401);
    assertThat(anonymous.headers().firstValue("WWW-Authenticate")).contains("Bearer");
    assertThat(post("/decode", PLAIN, Map.of("Authorization", "Bearer wrong")).statusCode())
        .isEqualTo(401);
    assertThat(post("/decode", PLAIN, Map.of("Authorization", "Bearer s3cret")).statusCode())
        .isEqualTo(200);

    HttpResponse<String> preflight = preflight(UI);
    assertThat(preflight.statusCode()).isEqualTo(204);
  }

  @Test
  void browsersAreLetInFromTheAllowedOriginsOnly() throws Exception {
    server = start(KEY_A, Optional.empty());

    HttpResponse<String> allowed = preflight(UI);
    assertThat(allowed.statusCode()).isEqualTo(204);
    assertThat(allowed.headers().firstValue("Access-Control-Allow-Origin")).contains(UI);
    assertThat(allowed.headers().firstValue("Access-Control-Allow-Headers").orElse(""))
        .contains("X-Namespace")
        .contains("Content-Type");
    HttpResponse<String> call = post("/decode", PLAIN, Map.of("Origin", UI));
    assertThat(call.headers().firstValue("Access-Control-Allow-Origin")).contains(UI);

    HttpResponse<String> elsewhere = post("/decode", PLAIN, Map.of("Origin", "http://evil.test"));
    assertThat(elsewhere.statusCode()).isEqualTo(403);
    assertThat(elsewhere.headers().firstValue("Access-Control-Allow-Origin")).isEmpty();
    assertThat(elsewhere.body()).doesNotContain("payloads");
  }

  @Test
  void badRequestsGetClearAnswers() throws Exception {
    server = start(KEY_A, Optional.empty());

    assertThat(post("/decode", "not json", Map.of()).statusCode()).isEqualTo(400);
    HttpResponse<String> get =
        http.send(
            HttpRequest.newBuilder(URI.create(server.endpoint() + "/decode")).GET().build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(get.statusCode()).isEqualTo(405);
  }

  @Test
  void withoutATokenItListensOnLoopbackOnly() throws Exception {
    PayloadKeys keys = keys(KEY_A);
    InetSocketAddress anyAddress = new InetSocketAddress("0.0.0.0", 0);

    assertThatThrownBy(() -> CodecServer.start(anyAddress, keys, Set.of(UI), Optional.empty()))
        .hasMessageContaining("loopback only")
        .hasMessageContaining(CodecServerCommand.TOKEN_VARIABLE);
  }

  @Test
  void theCommandRefusesToStartWithoutKeysOrWithABadAddress() {
    StringWriter err = new StringWriter();
    int withoutKeys =
        GenaceCli.execute(
            new Environment(Map.of()),
            new PrintWriter(new StringWriter()),
            new PrintWriter(err, true),
            "codec-server");
    assertThat(withoutKeys).isEqualTo(2);
    assertThat(err.toString()).contains(PayloadKeys.VARIABLE + " is not set");

    StringWriter badListen = new StringWriter();
    int code =
        GenaceCli.execute(
            new Environment(Map.of(PayloadKeys.VARIABLE, KEY_A)),
            new PrintWriter(new StringWriter()),
            new PrintWriter(badListen, true),
            "codec-server",
            "--listen",
            "localhost:http");
    assertThat(code).isEqualTo(2);
    assertThat(badListen.toString()).contains("expected HOST:PORT");
  }

  private static CodecServer start(String keys, Optional<String> token) {
    return CodecServer.start(
        new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), keys(keys), Set.of(UI), token);
  }

  private static PayloadKeys keys(String value) {
    return PayloadKeys.fromEnvironment(Map.of(PayloadKeys.VARIABLE, value)).orElseThrow();
  }

  private HttpResponse<String> post(String path, String body, Map<String, String> headers)
      throws Exception {
    return post(server, path, body, headers);
  }

  private HttpResponse<String> post(
      CodecServer target, String path, String body, Map<String, String> headers) throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(target.endpoint() + path))
            .header("Content-Type", "application/json")
            .header("X-Namespace", "default")
            .POST(HttpRequest.BodyPublishers.ofString(body));
    headers.forEach(request::header);
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> preflight(String origin) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create(server.endpoint() + "/decode"))
            .method("OPTIONS", HttpRequest.BodyPublishers.noBody())
            .header("Origin", origin)
            .header("Access-Control-Request-Method", "POST")
            .header("Access-Control-Request-Headers", "content-type,x-namespace")
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static String base64(String text) {
    return Base64.getEncoder().encodeToString(text.getBytes(StandardCharsets.UTF_8));
  }

  private static String text(JsonNode base64) {
    return new String(Base64.getDecoder().decode(base64.asText()), StandardCharsets.UTF_8);
  }
}
