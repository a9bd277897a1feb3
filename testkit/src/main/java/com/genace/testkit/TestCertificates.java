package com.genace.testkit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Certificates made for a test by {@code openssl} (on every Debian machine): CAs of their own and
 * leaf certificates they sign, PEM files in one directory, keys unencrypted PKCS#8. Valid for a
 * day.
 */
public final class TestCertificates {

  private final Path dir;

  private TestCertificates(Path dir) {
    this.dir = dir;
  }

  public static TestCertificates in(Path dir) {
    return new TestCertificates(dir);
  }

  /** A certificate file and its key file. */
  public record Pair(Path cert, Path key) {}

  /** A self-signed CA named {@code name}: {@code name.crt} and {@code name.key}. */
  public Pair ca(String name) {
    openssl(
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-days",
        "1",
        "-subj",
        "/CN=" + name,
        "-keyout",
        name + ".key",
        "-out",
        name + ".crt");
    return new Pair(dir.resolve(name + ".crt"), dir.resolve(name + ".key"));
  }

  /**
   * A certificate for {@code name} signed by {@code ca}, with these subject alternative names
   * ({@code DNS:temporal.test}, {@code IP:127.0.0.1}), if any.
   */
  public Pair signed(String name, Pair ca, String... alternativeNames) {
    openssl(
        "req",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-subj",
        "/CN=" + name,
        "-keyout",
        name + ".key",
        "-out",
        name + ".csr");
    List<String> sign =
        new ArrayList<>(
            List.of(
                "x509",
                "-req",
                "-in",
                name + ".csr",
                "-CA",
                ca.cert().toString(),
                "-CAkey",
                ca.key().toString(),
                "-CAcreateserial",
                "-days",
                "1",
                "-out",
                name + ".crt"));
    if (alternativeNames.length > 0) {
      try {
        Files.writeString(
            dir.resolve(name + ".ext"),
            "subjectAltName=" + String.join(",", alternativeNames) + "\n");
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
      sign.addAll(List.of("-extfile", name + ".ext"));
    }
    openssl(sign.toArray(String[]::new));
    return new Pair(dir.resolve(name + ".crt"), dir.resolve(name + ".key"));
  }

  private void openssl(String... arguments) {
    List<String> command = new ArrayList<>(List.of("openssl"));
    command.addAll(List.of(arguments));
    try {
      Process process =
          new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
      String output = new String(process.getInputStream().readAllBytes());
      if (process.waitFor() != 0) {
        throw new IllegalStateException("openssl " + arguments[0] + " failed: " + output);
      }
    } catch (IOException e) {
      throw new IllegalStateException("openssl could not run (is it installed?): " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
