package com.genace.client;

import io.opentelemetry.api.trace.Span;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * The body of an output download as the caller reads it. The call's span lasts until the body is
 * closed, and a failure while reading says which download it interrupted (never the URL's query,
 * where pre-signed URLs carry their credentials).
 */
final class OutputBody extends FilterInputStream {

  private final Span span;
  private final String what;
  private boolean ended;

  OutputBody(InputStream body, Span span, String what) {
    super(body);
    this.span = span;
    this.what = what;
  }

  @Override
  public int read() throws IOException {
    try {
      return super.read();
    } catch (IOException e) {
      throw failed(e);
    }
  }

  @Override
  public int read(byte[] buffer, int offset, int length) throws IOException {
    try {
      return super.read(buffer, offset, length);
    } catch (IOException e) {
      throw failed(e);
    }
  }

  @Override
  public void close() throws IOException {
    try {
      super.close();
    } finally {
      if (!ended) {
        ended = true;
        span.end();
      }
    }
  }

  private IOException failed(IOException e) {
    HttpSpans.failed(span, e);
    String message = e.getMessage();
    return new IOException(
        what
            + " failed while reading the body: "
            + e.getClass().getSimpleName()
            + (message == null ? "" : " (" + message + ")"),
        e);
  }
}
