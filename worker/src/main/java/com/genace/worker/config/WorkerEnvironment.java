package com.genace.worker.config;

import com.genace.activities.allowance.AllowancePolicy;
import com.genace.activities.db.DatabaseUrl;
import com.genace.activities.delivery.ArtifactLocation;
import com.genace.activities.delivery.S3Timeouts;
import com.genace.activities.dispatch.SendWindow;
import com.genace.activities.ledger.Identifiers;
import com.genace.activities.ledger.WaitLimits;
import com.genace.activities.review.ReviewSettings;
import com.genace.client.connection.TemporalSettings;
import com.genace.worker.fleet.ConfigVersion;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Reads a {@link WorkerConfig} from the environment and validates it: each variable's form and
 * range, then what must hold between them. Every complaint names the variable; no message ever
 * contains a secret.
 */
final class WorkerEnvironment {

  /**
   * The longest a delivery's download or S3 call may go without a byte: a link silent that long is
   * broken, and the attempt fails and is retried rather than holding its lease (a delivery
   * heartbeats and renews while its store call is under way) with the delivery's heartbeat timeout
   * of 60 s as the last resort.
   */
  static final int MAX_STALL_SECONDS = 45;

  /** The longest wait limit: 30 days, in seconds. */
  static final int MAX_WAIT_LIMIT_SECONDS = 30 * 24 * 3600;

  /** Ten years: a bound that catches a value in the wrong unit. */
  static final int MAX_LEDGER_RETENTION_DAYS = 3650;

  private final Map<String, String> env;

  private WorkerEnvironment(Map<String, String> env) {
    this.env = env;
  }

  /**
   * @throws IllegalArgumentException naming the first variable that is missing or malformed
   */
  static WorkerConfig read(Map<String, String> env) {
    WorkerEnvironment read = new WorkerEnvironment(env);
    WorkerConfig config =
        new WorkerConfig(
            TemporalSettings.fromEnvironment(env),
            read.databaseUrl("DATABASE_URL"),
            read.httpUrl("GENACE_BASE_URL"),
            read.required("GENACE_API_KEY"),
            read.seconds("GENACE_READ_TIMEOUT_SECONDS", 1, 600)
                .orElse(WorkerConfig.DEFAULT_READ_TIMEOUT),
            ArtifactLocation.fromEnvironment(env),
            read.workerId("GENACE_WORKER_ID"),
            read.hostPort("GENACE_STATUS_ADDR", WorkerConfig.DEFAULT_STATUS_ADDR),
            read.text("GENACE_STATUS_TOKEN"),
            read.seconds("GENACE_DRAIN_SECONDS", 0, 3600).orElse(WorkerConfig.DEFAULT_DRAIN),
            read.seconds("GENACE_LEASE_SECONDS", 5, 3600).orElse(WorkerConfig.DEFAULT_LEASE),
            read.integer("GENACE_MAX_DISPATCHES", 1, 1000)
                .orElse(WorkerConfig.DEFAULT_MAX_DISPATCHES),
            read.integer("GENACE_MAX_OPERATIONS", 1, 100_000)
                .orElse(WorkerConfig.DEFAULT_MAX_OPERATIONS),
            read.integer("GENACE_WORKFLOW_CACHE", 10, 10_000)
                .orElse(WorkerConfig.DEFAULT_WORKFLOW_CACHE),
            read.integer("GENACE_TASK_POLLERS", 2, 200).orElse(WorkerConfig.DEFAULT_TASK_POLLERS),
            pollMaxDelay(env),
            read.allowance(),
            read.configVersion("GENACE_CONFIG_VERSION"),
            read.buckets("GENACE_METRICS_BUCKETS").orElse(WorkerConfig.DEFAULT_METRIC_BUCKETS),
            read.seconds("GENACE_SWEEP_SECONDS", 1, 86_400)
                .orElse(WorkerConfig.DEFAULT_SWEEP_INTERVAL),
            new ReviewSettings(
                read.flag("GENACE_AUTO_RECONCILE").orElse(true),
                read.seconds("GENACE_EVIDENCE_SEARCH_SECONDS", 0, 120)
                    .orElse(ReviewSettings.DEFAULT_SEARCH_WINDOW),
                ReviewSettings.DEFAULT_SEARCH_INTERVAL,
                read.integer("GENACE_TWO_PERSON_CREDITS", 0, Integer.MAX_VALUE)
                    .map(OptionalLong::of)
                    .orElse(OptionalLong.empty())),
            // A large artifact legitimately takes long: its body is bounded by inactivity, and
            // by an overall cap that defaults to the delivery attempt's start-to-close timeout.
            read.seconds("GENACE_DOWNLOAD_STALL_SECONDS", 1, MAX_STALL_SECONDS)
                .orElse(WorkerConfig.DEFAULT_DOWNLOAD_STALL),
            read.seconds("GENACE_DOWNLOAD_MAX_SECONDS", 1, 86_400)
                .orElse(WorkerConfig.DEFAULT_DOWNLOAD_DEADLINE),
            new S3Timeouts(
                read.seconds("GENACE_S3_STALL_SECONDS", 1, MAX_STALL_SECONDS)
                    .orElse(S3Timeouts.DEFAULT_SOCKET_TIMEOUT),
                read.seconds("GENACE_S3_REQUEST_SECONDS", 1, 3600)
                    .orElse(S3Timeouts.DEFAULT_REQUEST_TIMEOUT)),
            new WaitLimits(
                read.seconds("GENACE_OBSERVING_TOO_LONG_SECONDS", 60, MAX_WAIT_LIMIT_SECONDS)
                    .orElse(WaitLimits.DEFAULT.observing()),
                read.seconds("GENACE_DELIVERING_TOO_LONG_SECONDS", 60, MAX_WAIT_LIMIT_SECONDS)
                    .orElse(WaitLimits.DEFAULT.delivering())),
            read.integer("GENACE_LEDGER_RETENTION_DAYS", 0, MAX_LEDGER_RETENTION_DAYS)
                .orElse(WorkerConfig.DEFAULT_LEDGER_RETENTION_DAYS),
            read.seconds("GENACE_RECORDING_MARGIN_SECONDS", 1, 60)
                .orElse(WorkerConfig.DEFAULT_RECORDING_MARGIN));
    requireRoomToSend(config);
    return config;
  }

  /**
   * A POST leaves only while its claim time, the read timeout and the recording margin still lie
   * inside the lease ({@link SendWindow}): a lease that leaves less than {@link
   * SendWindow#MIN_SEND_TIME} for that would record {@code not_sent} for every dispatch.
   */
  private static void requireRoomToSend(WorkerConfig config) {
    SendWindow window = config.sendWindow();
    Duration lease = config.leaseDuration();
    if (window.leavesRoomUnder(lease)) {
      return;
    }
    long read = window.answerWithin().toSeconds();
    long margin = window.recordingMargin().toSeconds();
    long room = SendWindow.MIN_SEND_TIME.toSeconds();
    throw new IllegalArgumentException(
        "GENACE_LEASE_SECONDS ("
            + lease.toSeconds()
            + ") must be at least GENACE_READ_TIMEOUT_SECONDS ("
            + read
            + ") + GENACE_RECORDING_MARGIN_SECONDS ("
            + margin
            + ") + "
            + room
            + ": a POST leaves only while its claim time, its read timeout and the margin to record"
            + " its answer still lie inside its lease, with at least "
            + room
            + " s to send in; raise GENACE_LEASE_SECONDS to "
            + window.shortestLease().toSeconds()
            + " or lower GENACE_READ_TIMEOUT_SECONDS"
            + (lease.toSeconds() - margin - room >= 1
                ? " to " + (lease.toSeconds() - margin - room)
                : "")
            + " or GENACE_RECORDING_MARGIN_SECONDS");
  }

  /**
   * {@code GENACE_POLL_MAX_SECONDS}, 1 to 3600 s, default {@link
   * WorkerConfig#DEFAULT_POLL_MAX_DELAY}.
   */
  static Duration pollMaxDelay(Map<String, String> env) {
    return new WorkerEnvironment(env)
        .seconds("GENACE_POLL_MAX_SECONDS", 1, 3600)
        .orElse(WorkerConfig.DEFAULT_POLL_MAX_DELAY);
  }

  /** {@code host-pid}: unique per process, readable in leases and logs. */
  static String defaultWorkerId() {
    String host = Optional.ofNullable(System.getenv("HOSTNAME")).orElse("localhost");
    try {
      host = java.net.InetAddress.getLocalHost().getHostName();
    } catch (java.net.UnknownHostException e) {
      // keep the environment's host name
    }
    return host + "-" + ProcessHandle.current().pid();
  }

  private Optional<String> text(String name) {
    return Optional.ofNullable(env.get(name)).map(String::trim).filter(v -> !v.isEmpty());
  }

  /**
   * The lease owner and Temporal identity: within the ledger's limit on owners (shorter than
   * Temporal's on identities), else every claim and every task poll would be refused.
   */
  private String workerId(String name) {
    String id = text(name).orElseGet(WorkerEnvironment::defaultWorkerId);
    try {
      return Identifiers.requireOwner(id);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          name
              + " must be at most "
              + Identifiers.MAX_LENGTH
              + " characters without control characters ("
              + e.getMessage()
              + ")");
    }
  }

  private Optional<String> configVersion(String name) {
    try {
      return text(name).map(ConfigVersion::require);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(name + ": " + e.getMessage());
    }
  }

  private String required(String name) {
    return text(name).orElseThrow(() -> new IllegalArgumentException(name + " is not set"));
  }

  private DatabaseUrl databaseUrl(String name) {
    try {
      return DatabaseUrl.parse(required(name));
    } catch (IllegalArgumentException e) {
      throw e.getMessage().startsWith(name)
          ? e
          : new IllegalArgumentException(name + " is invalid: " + e.getMessage());
    }
  }

  private URI httpUrl(String name) {
    String value = required(name);
    try {
      URI uri = URI.create(value);
      if (!("http".equals(uri.getScheme()) || "https".equals(uri.getScheme()))
          || uri.getHost() == null) {
        throw new IllegalArgumentException("not an http(s) URL");
      }
      return uri;
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(name + " must be an http(s) URL");
    }
  }

  private InetSocketAddress hostPort(String name, String fallback) {
    String value = text(name).orElse(fallback);
    int colon = value.lastIndexOf(':');
    try {
      int port = Integer.parseInt(value.substring(colon + 1));
      if (colon < 1 || port < 0 || port > 65535) {
        throw new NumberFormatException();
      }
      return new InetSocketAddress(value.substring(0, colon), port);
    } catch (NumberFormatException | StringIndexOutOfBoundsException e) {
      throw new IllegalArgumentException(name + " must be host:port, e.g. " + fallback);
    }
  }

  private Optional<Boolean> flag(String name) {
    Optional<String> value = text(name);
    if (value.isEmpty()) {
      return Optional.empty();
    }
    return switch (value.get().toLowerCase(java.util.Locale.ROOT)) {
      case "true" -> Optional.of(true);
      case "false" -> Optional.of(false);
      default -> throw new IllegalArgumentException(name + " must be true or false");
    };
  }

  private Optional<Integer> integer(String name, int min, int max) {
    return text(name)
        .map(
            value -> {
              try {
                int parsed = Integer.parseInt(value);
                if (parsed < min || parsed > max) {
                  throw new NumberFormatException();
                }
                return parsed;
              } catch (NumberFormatException e) {
                throw new IllegalArgumentException(
                    name + " must be a whole number from " + min + " to " + max);
              }
            });
  }

  /** Comma-separated seconds, e.g. {@code 0.05,0.5,5}: at most 20 positive values. */
  private Optional<List<Duration>> buckets(String name) {
    Optional<String> value = text(name);
    if (value.isEmpty()) {
      return Optional.empty();
    }
    List<Duration> buckets = new java.util.ArrayList<>();
    for (String part : value.get().split(",")) {
      try {
        double seconds = Double.parseDouble(part.trim());
        if (!(seconds > 0) || seconds > 86_400) {
          throw new NumberFormatException();
        }
        buckets.add(Duration.ofNanos(Math.round(seconds * 1e9)));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(
            name + " must be comma-separated seconds between 0 and 86400, e.g. 0.05,0.5,5");
      }
    }
    if (buckets.size() > 20) {
      throw new IllegalArgumentException(name + " takes at most 20 buckets");
    }
    return Optional.of(List.copyOf(buckets));
  }

  private Optional<Duration> seconds(String name, int min, int max) {
    return integer(name, min, max).map(Duration::ofSeconds);
  }

  /** Every limit is optional; an absent one does not limit. */
  private AllowancePolicy allowance() {
    AllowancePolicy unlimited = AllowancePolicy.UNLIMITED;
    java.util.Map<String, Long> costs;
    try {
      costs =
          text("GENACE_MODEL_COSTS").map(AllowancePolicy::parseCosts).orElse(java.util.Map.of());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("GENACE_MODEL_COSTS: " + e.getMessage());
    }
    return new AllowancePolicy(
        seconds("GENACE_ALLOWANCE_WINDOW_SECONDS", 1, 31 * 24 * 3600).orElse(unlimited.window()),
        integer("GENACE_ALLOWANCE_CREDITS", 0, Integer.MAX_VALUE)
            .map(Long::valueOf)
            .orElse(unlimited.globalCredits()),
        integer("GENACE_ALLOWANCE_ACCOUNT_CREDITS", 0, Integer.MAX_VALUE)
            .map(Long::valueOf)
            .orElse(unlimited.accountCredits()),
        integer("GENACE_ALLOWANCE_MAX_IN_FLIGHT", 1, Integer.MAX_VALUE)
            .orElse(unlimited.globalMaxInFlight()),
        integer("GENACE_ALLOWANCE_ACCOUNT_MAX_IN_FLIGHT", 1, Integer.MAX_VALUE)
            .orElse(unlimited.accountMaxInFlight()),
        costs,
        integer("GENACE_DEFAULT_COST", 0, Integer.MAX_VALUE).map(Long::valueOf).orElse(1L));
  }
}
