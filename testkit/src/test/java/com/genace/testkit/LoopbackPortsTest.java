package com.genace.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class LoopbackPortsTest {

  @Test
  void ports_lie_below_the_ephemeral_range_are_bindable_and_never_repeat() throws Exception {
    int ephemeralLow =
        Integer.parseInt(
            Files.readAllLines(Path.of("/proc/sys/net/ipv4/ip_local_port_range"))
                .get(0)
                .strip()
                .split("\\s+")[0]);
    Set<Integer> ports = new HashSet<>();
    for (int i = 0; i < 50; i++) {
      int port = LoopbackPorts.free();
      assertThat(port).isBetween(20_000, ephemeralLow - 1);
      try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
        assertThat(socket.getLocalPort()).isEqualTo(port);
      }
      ports.add(port);
    }
    assertThat(ports).hasSize(50);
  }
}
