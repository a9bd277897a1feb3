package com.genace.worker.config;

import com.genace.activities.allowance.AllowancePolicy;
import com.genace.activities.db.DatabaseUrl;
import com.genace.activities.delivery.ArtifactLocation;
import com.genace.activities.delivery.S3Timeouts;
import com.genace.activities.dispatch.SendWindow;
import com.genace.activities.genace.GenaceClientConfig;
import com.genace.activities.ledger.WaitLimits;
import com.genace.activities.observation.PollingPolicy;
import com.genace.activities.review.ReviewSettings;
import com.genace.client.connection.TemporalSettings;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A worker's whole configuration, read once from the environment and validated at start (by {@code
 * WorkerEnvironment}). Every complaint names the variable; no message ever contains a secret.
 *
 * @param configVersion the configuration version this worker was deployed with ({@code
 *     GENACE_CONFIG_VERSION}); dispatch needs it to be the fleet's current one
 * @param workflowCacheSize workflows cached between workflow tasks, and the workflow threads that
 *     hold them ({@code GENACE_WORKFLOW_CACHE})
 * @param taskPollers concurrent long polls for workflow tasks and for each activity queue that
 *     carries the load: registration and delivery, and observation ({@code GENACE_TASK_POLLERS})
 * @param pollMaxDelay the slowest pace of status polls ({@code GENACE_POLL_MAX_SECONDS}): each
 *     observed render is polled about this often once its backoff has grown
 * @param sweepInterval how often the orphan sweeper's Temporal Schedule runs ({@code
 *     GENACE_SWEEP_SECONDS})
 * @param review whether reviews settle themselves ({@code GENACE_AUTO_RECONCILE}) and how long
 *     their evidence is searched for ({@code GENACE_EVIDENCE_SEARCH_SECONDS})
 * @param genaceReadTimeout each JSON exchange with Genace (create, status, search, models), end to
 *     end: headers and body ({@code GENACE_READ_TIMEOUT_SECONDS}); also an output's headers
 * @param genaceDownloadStall an output download fails when a read waits this long for a byte
 *     ({@code GENACE_DOWNLOAD_STALL_SECONDS})
 * @param genaceDownloadDeadline an output download fails when not complete this long after its
 *     request ({@code GENACE_DOWNLOAD_MAX_SECONDS})
 * @param s3Timeouts how long an S3 artifact store waits for S3 ({@code GENACE_S3_STALL_SECONDS},
 *     {@code GENACE_S3_REQUEST_SECONDS})
 * @param waitLimits how long an operation may observe ({@code GENACE_OBSERVING_TOO_LONG_SECONDS},
 *     60 s to 30 days, default 6 h) or deliver ({@code GENACE_DELIVERING_TOO_LONG_SECONDS}, 60 s to
 *     30 days, default 1 h) before one ERROR line says so; nothing else changes
 * @param ledgerRetentionDays ended operations are deleted from the ledger this many days after they
 *     ended ({@code GENACE_LEDGER_RETENTION_DAYS}, 0 to 3650, default 90; 0 keeps everything), by
 *     the retention's Temporal Schedule
 * @param recordingMargin what recording a POST's answer under its lease needs ({@code
 *     GENACE_RECORDING_MARGIN_SECONDS}, 1 to 60, default 3): a POST leaves only while its claim
 *     time, the read timeout and this margin still fit in the lease ({@link #sendWindow})
 */
public record WorkerConfig(
    TemporalSettings temporal,
    DatabaseUrl databaseUrl,
    URI genaceBaseUrl,
    String genaceApiKey,
    Duration genaceReadTimeout,
    ArtifactLocation artifacts,
    String workerId,
    InetSocketAddress statusAddress,
    Optional<String> statusToken,
    Duration drainTimeout,
    Duration leaseDuration,
    int maxConcurrentDispatches,
    int maxConcurrentOperations,
    int workflowCacheSize,
    int taskPollers,
    Duration pollMaxDelay,
    AllowancePolicy allowance,
    Optional<String> configVersion,
    List<Duration> metricBuckets,
    Duration sweepInterval,
    ReviewSettings review,
    Duration genaceDownloadStall,
    Duration genaceDownloadDeadline,
    S3Timeouts s3Timeouts,
    WaitLimits waitLimits,
    int ledgerRetentionDays,
    Duration recordingMargin) {

  public static final String DEFAULT_STATUS_ADDR = "127.0.0.1:8686";
  public static final Duration DEFAULT_READ_TIMEOUT = Duration.ofSeconds(30);

  public static final Duration DEFAULT_DOWNLOAD_STALL =
      GenaceClientConfig.DEFAULT_DOWNLOAD_STALL_TIMEOUT;
  public static final Duration DEFAULT_DOWNLOAD_DEADLINE =
      GenaceClientConfig.DEFAULT_DOWNLOAD_DEADLINE;
  public static final Duration DEFAULT_DRAIN = Duration.ofSeconds(30);
  public static final Duration DEFAULT_LEASE = Duration.ofSeconds(45);
  public static final int DEFAULT_MAX_DISPATCHES = 8;
  public static final int DEFAULT_MAX_OPERATIONS = 200;

  /**
   * Workflows kept in memory between their workflow tasks, each with a thread of its own. An
   * operation wakes its workflow a handful of times in its life (its status polls are the poll
   * loop's work, not workflow tasks), so an evicted workflow costs one short replay, while every
   * cached one costs a thread: the SDK's default of 600 made the worker's threads the largest
   * figure of {@code bench scale}.
   */
  public static final int DEFAULT_WORKFLOW_CACHE = 150;

  /**
   * Task polls (long polls) per task queue. Each brings one task, so a queue takes at most its
   * pollers divided by a task poll's round trip: 500 tasks a second at 20 ms. Each poller is one
   * waiting thread; more of them add threads but no throughput in {@code bench scale}
   * (docs/performance.md).
   */
  public static final int DEFAULT_TASK_POLLERS = 10;

  /**
   * The slowest pace of status polls. Each is a ledger claim and a GET, with no Temporal call, so a
   * fleet observing N renders makes about N / this many status polls a second: raise it for long
   * renders or a busy Genace.
   */
  public static final Duration DEFAULT_POLL_MAX_DELAY = PollingPolicy.DEFAULT.maxDelay();

  /** The buckets of the Temporal SDK's latency histograms on {@code /metrics}, in seconds. */
  public static final List<Duration> DEFAULT_METRIC_BUCKETS =
      List.of(
          Duration.ofMillis(10),
          Duration.ofMillis(50),
          Duration.ofMillis(250),
          Duration.ofSeconds(1),
          Duration.ofSeconds(5),
          Duration.ofSeconds(30));

  /**
   * An orphan waits at most this long for review. Each sweep describes every unfinished operation's
   * workflow once, so a short interval costs Temporal calls for nothing in a healthy fleet.
   */
  public static final Duration DEFAULT_SWEEP_INTERVAL = Duration.ofMinutes(5);

  /**
   * Ended operations are kept this many days: a quarter of history to look back at in {@code ops
   * show}, and longer than Temporal Cloud's and most namespaces' retention of closed workflows, so
   * that the row outlives the workflow (the retention waits for Temporal in any case).
   */
  public static final int DEFAULT_LEDGER_RETENTION_DAYS = 90;

  /** See {@link SendWindow#DEFAULT_RECORDING_MARGIN}. */
  public static final Duration DEFAULT_RECORDING_MARGIN = SendWindow.DEFAULT_RECORDING_MARGIN;

  /**
   * How long after its claim a POST may leave: the Genace read timeout (which bounds the whole
   * exchange, connecting included) and the recording margin, taken from the lease.
   */
  public SendWindow sendWindow() {
    return new SendWindow(genaceReadTimeout, recordingMargin);
  }

  /** How this worker paces status polls: the default backoff up to {@link #pollMaxDelay}. */
  public PollingPolicy polling() {
    return PollingPolicy.DEFAULT.withMaxDelay(pollMaxDelay);
  }

  /** {@code GENACE_POLL_MAX_SECONDS}, 1 to 3600 s, default {@link #DEFAULT_POLL_MAX_DELAY}. */
  public static Duration pollMaxDelay(Map<String, String> env) {
    return WorkerEnvironment.pollMaxDelay(env);
  }

  /**
   * Reads and validates the configuration.
   *
   * @throws IllegalArgumentException naming the first variable that is missing or malformed
   */
  public static WorkerConfig fromEnvironment(Map<String, String> env) {
    return WorkerEnvironment.read(env);
  }

  /** How this worker talks to Genace: its URL, key and every deadline. */
  public GenaceClientConfig genaceClientConfig() {
    return GenaceClientConfig.of(genaceBaseUrl, genaceApiKey)
        .withTimeouts(GenaceClientConfig.DEFAULT_CONNECT_TIMEOUT, genaceReadTimeout)
        .withDownloadTimeouts(genaceDownloadStall, genaceDownloadDeadline);
  }

  public String temporalAddress() {
    return temporal.address();
  }

  public String temporalNamespace() {
    return temporal.namespace();
  }

  /**
   * Hex digest of the settings that must agree across the fleet (allowance, model costs, lease and
   * timeouts), so that drift between workers shows on their status documents.
   */
  public String fleetFingerprint() {
    return FleetFingerprint.of(this);
  }

  /** Secrets are never printed. */
  @Override
  public String toString() {
    return "WorkerConfig[temporal="
        + temporal
        + ", database="
        + databaseUrl
        + ", genace="
        + genaceBaseUrl
        + ", artifacts="
        + artifacts.uri()
        + ", workerId="
        + workerId
        + ", status="
        + statusAddress
        + ", configVersion="
        + configVersion.orElse("none")
        + "]";
  }
}
