package com.genace.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Free loopback ports for the servers that tests and benches start, chosen <em>below</em> the
 * kernel's ephemeral range.
 *
 * <p>A port from {@code bind(0)} lies inside that range, and it is free again the moment it is
 * handed over: until the server binds it (after an {@code initdb}, a JVM start), any outgoing
 * connection and any other process asking for "a free port" may take it. The Temporal dev server,
 * starting alongside, binds several ports that way; one of them can take PostgreSQL's. Below the
 * range only an explicit bind can take a port, and this class never hands out the same one twice.
 */
public final class LoopbackPorts {

  private static final Path EPHEMERAL_RANGE = Path.of("/proc/sys/net/ipv4/ip_local_port_range");

  /** Where the search starts: above the ports well-known services are configured on. */
  private static final int LOWEST = 20_000;

  private static final int ATTEMPTS = 200;

  private static final Set<Integer> handedOut = new HashSet<>();

  private LoopbackPorts() {}

  /** A port nothing listens on now and that no other caller in this JVM was given. */
  public static synchronized int free() {
    int ceiling = ephemeralLow();
    if (ceiling - LOWEST < 1_000) {
      // An unusual range leaves no room below it; the kernel's choice is the best left.
      return bindAny();
    }
    for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
      int port = ThreadLocalRandom.current().nextInt(LOWEST, ceiling);
      if (!handedOut.contains(port) && bindable(port)) {
        handedOut.add(port);
        return port;
      }
    }
    throw new IllegalStateException(
        "no free loopback port between "
            + LOWEST
            + " and "
            + ceiling
            + " in "
            + ATTEMPTS
            + " tries");
  }

  /** Read line by line: {@code Files.readString} gets only the first byte of a procfs file. */
  private static int ephemeralLow() {
    try {
      return Integer.parseInt(Files.readAllLines(EPHEMERAL_RANGE).get(0).strip().split("\\s+")[0]);
    } catch (IOException | RuntimeException notLinux) {
      return 0;
    }
  }

  private static boolean bindable(int port) {
    try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
      return true;
    } catch (IOException taken) {
      return false;
    }
  }

  private static int bindAny() {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
