package com.genace.activities.testing;

import com.genace.testkit.LoopbackPorts;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * One real S3 server per test JVM: S3Proxy (a Java implementation of the S3 API) on a file-system
 * blob store, started as a child process from its self-contained jar, which the build copies to
 * {@code target/s3proxy} (its own dependencies never meet ours). Or the server named by {@value
 * #ENDPOINT_VARIABLE} (any S3-compatible server, for example MinIO or moto's), with the credentials
 * in {@code GENACE_TEST_S3_ACCESS_KEY_ID} / {@code GENACE_TEST_S3_SECRET_ACCESS_KEY}.
 */
public final class S3Server {

  public static final String ENDPOINT_VARIABLE = "GENACE_TEST_S3_ENDPOINT";
  static final String JAR_PROPERTY = "genace.s3proxy.jar";
  static final Duration START_TIMEOUT = Duration.ofSeconds(90);

  private static final AtomicInteger BUCKETS = new AtomicInteger();
  private static S3Server server;

  private final URI endpoint;
  private final String accessKey;
  private final String secretKey;

  private S3Server(URI endpoint, String accessKey, String secretKey) {
    this.endpoint = endpoint;
    this.accessKey = accessKey;
    this.secretKey = secretKey;
  }

  public static synchronized S3Server get() {
    if (server == null) {
      String configured = System.getenv(ENDPOINT_VARIABLE);
      server =
          configured != null && !configured.isBlank()
              ? new S3Server(
                  URI.create(configured.trim()),
                  envOr("GENACE_TEST_S3_ACCESS_KEY_ID", "test"),
                  envOr("GENACE_TEST_S3_SECRET_ACCESS_KEY", "test"))
              : startS3Proxy();
    }
    return server;
  }

  public URI endpoint() {
    return endpoint;
  }

  /** The environment a worker would be given to reach this server. */
  public Map<String, String> environment() {
    return Map.of(
        "AWS_ENDPOINT_URL",
        endpoint.toString(),
        "AWS_REGION",
        "us-east-1",
        "AWS_ACCESS_KEY_ID",
        accessKey,
        "AWS_SECRET_ACCESS_KEY",
        secretKey);
  }

  /** A client for this server, with the given credentials' secret (to test refusals). */
  public S3Client client(String secret) {
    return S3Client.builder()
        .endpointOverride(endpoint)
        .forcePathStyle(true)
        .region(Region.US_EAST_1)
        .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
        .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
        .credentialsProvider(
            StaticCredentialsProvider.create(AwsBasicCredentials.create(accessKey, secret)))
        .build();
  }

  public S3Client client() {
    return client(secretKey);
  }

  /** A new, empty bucket with a unique name. */
  public String newBucket(S3Client s3) {
    String bucket =
        "genace-test-" + ProcessHandle.current().pid() + "-" + BUCKETS.incrementAndGet();
    s3.createBucket(b -> b.bucket(bucket));
    return bucket;
  }

  private static S3Server startS3Proxy() {
    String jar = System.getProperty(JAR_PROPERTY);
    if (jar == null || !Files.isRegularFile(Path.of(jar))) {
      throw new IllegalStateException(
          "S3Proxy's jar is not at "
              + jar
              + " (system property "
              + JAR_PROPERTY
              + "; the build copies it there in process-test-resources)");
    }
    try {
      Path home = Files.createTempDirectory("genace-s3proxy-");
      Path blobs = Files.createDirectories(home.resolve("blobs"));
      int port = LoopbackPorts.free();
      Path properties = home.resolve("s3proxy.properties");
      Files.writeString(
          properties,
          String.join(
              "\n",
              "s3proxy.endpoint=http://127.0.0.1:" + port,
              "s3proxy.authorization=aws-v2-or-v4",
              "s3proxy.identity=test",
              "s3proxy.credential=test",
              "jclouds.provider=filesystem",
              "jclouds.filesystem.basedir=" + blobs,
              ""));
      Process process =
          new ProcessBuilder(
                  Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                  "-Xmx512m",
                  "-jar",
                  jar,
                  "--properties",
                  properties.toString())
              .redirectErrorStream(true)
              .redirectOutput(home.resolve("s3proxy.log").toFile())
              .start();
      Runtime.getRuntime()
          .addShutdownHook(
              new Thread(
                  () -> {
                    process.destroy();
                    try {
                      process.waitFor();
                    } catch (InterruptedException e) {
                      Thread.currentThread().interrupt();
                    }
                    deleteRecursively(home);
                  },
                  "s3proxy-stop"));
      awaitListening(process, port, home.resolve("s3proxy.log"));
      return new S3Server(URI.create("http://127.0.0.1:" + port), "test", "test");
    } catch (IOException e) {
      throw new UncheckedIOException("could not start S3Proxy", e);
    }
  }

  private static void awaitListening(Process process, int port, Path log) throws IOException {
    Instant deadline = Instant.now().plus(START_TIMEOUT);
    while (Instant.now().isBefore(deadline)) {
      if (!process.isAlive()) {
        throw new IllegalStateException("S3Proxy exited at start: " + Files.readString(log));
      }
      try (Socket socket = new Socket()) {
        socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
        return;
      } catch (IOException notYet) {
        sleep(200);
      }
    }
    process.destroy();
    throw new IllegalStateException("S3Proxy did not listen within " + START_TIMEOUT);
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while S3Proxy started", e);
    }
  }

  private static void deleteRecursively(Path root) {
    try (Stream<Path> paths = Files.walk(root)) {
      paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
    } catch (IOException e) {
      // a temporary directory left behind
    }
  }

  private static String envOr(String name, String fallback) {
    String value = System.getenv(name);
    return value == null || value.isBlank() ? fallback : value;
  }
}
