package com.genace.ops.dev;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.OptionalLong;

/**
 * A Python package index's simple API in its JSON form (PEP 691), as pip reads it: the files of a
 * project, each with its SHA-256. PyPI's is {@code https://pypi.org/simple}.
 */
final class PackageIndex {

  static final URI PYPI = URI.create("https://pypi.org/simple/");

  private static final String JSON_API = "application/vnd.pypi.simple.v1+json";
  private static final Duration TIMEOUT = Duration.ofSeconds(30);
  private static final ObjectMapper JSON = new ObjectMapper();

  /** One file of a project, as the index lists it. */
  record File(String filename, URI url, String sha256, OptionalLong size, boolean yanked) {}

  private final URI base;
  private final HttpClient http;

  /**
   * @param base the index's simple API, e.g. {@link #PYPI}
   */
  PackageIndex(URI base, HttpClient http) {
    String text = base.toString();
    this.base = URI.create(text.endsWith("/") ? text : text + "/");
    this.http = http;
  }

  URI base() {
    return base;
  }

  /**
   * The files the index lists for the project.
   *
   * @throws IOException when the index cannot be reached or does not answer with the JSON API
   */
  List<File> files(String project) throws IOException {
    URI page = base.resolve(normalized(project) + "/");
    HttpResponse<String> response;
    try {
      response =
          http.send(
              HttpRequest.newBuilder(page).timeout(TIMEOUT).header("Accept", JSON_API).build(),
              HttpResponse.BodyHandlers.ofString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while reading " + page, e);
    }
    if (response.statusCode() != 200) {
      throw new IOException(page + " answered HTTP " + response.statusCode());
    }
    String type = response.headers().firstValue("Content-Type").orElse("");
    if (!type.startsWith(JSON_API)) {
      throw new IOException(
          page + " did not answer with the simple JSON API (PEP 691) but " + quoted(type));
    }
    JsonNode files = JSON.readTree(response.body()).path("files");
    List<File> listed = new ArrayList<>();
    for (JsonNode file : files) {
      JsonNode size = file.path("size");
      JsonNode yanked = file.path("yanked");
      listed.add(
          new File(
              file.path("filename").asText(),
              page.resolve(file.path("url").asText()),
              file.path("hashes").path("sha256").asText(""),
              size.canConvertToLong() ? OptionalLong.of(size.asLong()) : OptionalLong.empty(),
              yanked.isTextual() || yanked.asBoolean(false)));
    }
    return listed;
  }

  /** PEP 503: lower case, and runs of {@code -_.} as one {@code -}. */
  static String normalized(String project) {
    return project.toLowerCase(Locale.ROOT).replaceAll("[-_.]+", "-");
  }

  private static String quoted(String type) {
    return type.isEmpty() ? "no content type" : "'" + type + "'";
  }
}
