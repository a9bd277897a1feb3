package com.genace.ops.faults.support;

import com.genace.testkit.LoopbackPorts;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * A real PostgreSQL 15 server process of its own ({@code initdb} and {@code pg_ctl} from {@value
 * #DEFAULT_BIN}, or {@code GENACE_PG_BIN}), on a loopback port, that a drill can crash and restart.
 * Durability is traded for speed ({@code fsync=off}): an immediate stop still keeps what the OS
 * buffered, which is all a crash of the server process (not of the machine) loses.
 */
public final class PostgresServer implements AutoCloseable {

  public static final String DEFAULT_BIN = "/usr/lib/postgresql/15/bin";

  private final Path bin;
  private final Path dataDir;
  private final int port;
  private boolean running;

  private PostgresServer(Path bin, Path dataDir, int port) {
    this.bin = bin;
    this.dataDir = dataDir;
    this.port = port;
  }

  /** Creates a cluster in {@code dir} and starts it. */
  public static PostgresServer create(Path dir) throws IOException, InterruptedException {
    Path bin = Path.of(System.getenv().getOrDefault("GENACE_PG_BIN", DEFAULT_BIN));
    if (!Files.isExecutable(bin.resolve("initdb"))) {
      throw new IllegalStateException(
          bin.resolve("initdb")
              + " is missing: the fault drills need PostgreSQL 15's server binaries"
              + " (apt-get install postgresql-15, or set GENACE_PG_BIN)");
    }
    PostgresServer server = new PostgresServer(bin, dir.resolve("pgdata"), LoopbackPorts.free());
    Drills.run(
        List.of(
            bin.resolve("initdb").toString(),
            "-D",
            server.dataDir.toString(),
            "-U",
            "postgres",
            "-A",
            "trust",
            "--no-sync"),
        dir.resolve("initdb.log"));
    server.start();
    return server;
  }

  public int port() {
    return port;
  }

  /** For the worker's {@code DATABASE_URL}, possibly through a proxy on another port. */
  public static String url(int port) {
    return "postgresql://postgres@127.0.0.1:" + port + "/postgres";
  }

  public String url() {
    return url(port);
  }

  /** A direct connection: the drill's own view of the ledger, never through a fault. */
  public Connection connect() throws SQLException {
    return DriverManager.getConnection(
        "jdbc:postgresql://127.0.0.1:" + port + "/postgres?user=postgres&connectTimeout=5");
  }

  public void start() throws IOException, InterruptedException {
    Path serverLog = dataDir.resolveSibling("server.log");
    try {
      pgCtl(
          "-o",
          "-p "
              + port
              + " -c listen_addresses=127.0.0.1 -c unix_socket_directories='' -c fsync=off"
              + " -c max_connections=200",
          "-l",
          serverLog.toString(),
          "-w",
          "-t",
          "60",
          "start");
    } catch (IllegalStateException e) {
      // pg_ctl only says "examine the log output": the reason is in the server's own log.
      throw new IllegalStateException(
          e.getMessage() + "\nserver.log:\n" + Drills.tail(serverLog), e);
    }
    running = true;
  }

  /** What a crash does: every server process ends at once, with no shutdown checkpoint. */
  public void crash() throws IOException, InterruptedException {
    pgCtl("-m", "immediate", "-w", "stop");
    running = false;
  }

  private void pgCtl(String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of(bin.resolve("pg_ctl").toString()));
    command.add("-D");
    command.add(dataDir.toString());
    command.addAll(List.of(args));
    Drills.run(command, dataDir.resolveSibling("pg_ctl.log"));
  }

  @Override
  public void close() throws IOException, InterruptedException {
    if (running) {
      crash();
    }
  }
}
