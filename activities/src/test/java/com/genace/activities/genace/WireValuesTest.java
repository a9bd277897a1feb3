package com.genace.activities.genace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.genace.activities.genace.support.CannedServer;
import com.genace.activities.genace.support.ClientTestSupport;
import com.genace.workflows.model.RemoteStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Statuses and {@code Retry-After} values as they appear on the wire. */
class WireValuesTest {

  @Test
  void statuses_parse_from_lowercase_wire_names_only() {
    assertThat(RemoteStatus.parse("queued")).isEqualTo(RemoteStatus.QUEUED);
    assertThat(RemoteStatus.parse("canceled")).isEqualTo(RemoteStatus.CANCELED);
    assertThatThrownBy(() -> RemoteStatus.parse("Running"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> RemoteStatus.parse(null)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void terminal_statuses_outrank_running_which_outranks_queued() {
    assertThat(RemoteStatus.QUEUED.rank()).isLessThan(RemoteStatus.RUNNING.rank());
    assertThat(RemoteStatus.RUNNING.rank()).isLessThan(RemoteStatus.SUCCEEDED.rank());
    assertThat(RemoteStatus.FAILED.rank()).isEqualTo(RemoteStatus.CANCELED.rank());
    assertThat(RemoteStatus.RUNNING.isTerminal()).isFalse();
    assertThat(RemoteStatus.CANCELED.isTerminal()).isTrue();
  }

  @Test
  void retry_after_accepts_seconds_and_http_dates_and_defaults_to_one_second() {
    Instant now = Instant.parse("2025-01-01T00:00:00Z");

    assertThat(ResponseParser.retryAfter(Optional.of("7"), now)).isEqualTo(Duration.ofSeconds(7));
    assertThat(ResponseParser.retryAfter(Optional.of("Wed, 01 Jan 2025 00:00:30 GMT"), now))
        .isEqualTo(Duration.ofSeconds(30));
    assertThat(ResponseParser.retryAfter(Optional.of("Tue, 31 Dec 2024 00:00:00 GMT"), now))
        .isEqualTo(Duration.ZERO);
    assertThat(ResponseParser.retryAfter(Optional.empty(), now)).isEqualTo(Duration.ofSeconds(1));
    assertThat(ResponseParser.retryAfter(Optional.of("soon"), now))
        .isEqualTo(Duration.ofSeconds(1));
    assertThat(ResponseParser.retryAfter(Optional.of("-3"), now)).isEqualTo(Duration.ofSeconds(1));
  }

  @Test
  void a_429_from_the_server_carries_its_retry_after_into_the_outcome() {
    try (CannedServer server = CannedServer.answering(429, "").withRetryAfter("12")) {
      CreateOutcome outcome =
          ClientTestSupport.clientFor(server.baseUrl()).create(ClientTestSupport.request("op-1"));

      assertThat(outcome).isEqualTo(new CreateOutcome.RateLimited(Duration.ofSeconds(12)));
    }
  }
}
