package com.genace.activities.db;

import java.time.Duration;

/**
 * How the application talks to PostgreSQL. Every statement runs with bounded lock and statement
 * timeouts, so that contention fails fast with an error instead of hanging a worker.
 */
public record DatabaseConfig(
    DatabaseUrl url,
    int maxPoolSize,
    Duration connectTimeout,
    Duration lockTimeout,
    Duration statementTimeout) {

  public static final int DEFAULT_MAX_POOL_SIZE = 10;
  public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(5);
  public static final Duration DEFAULT_LOCK_TIMEOUT = Duration.ofSeconds(2);
  public static final Duration DEFAULT_STATEMENT_TIMEOUT = Duration.ofSeconds(10);

  public DatabaseConfig {
    if (url == null) {
      throw new IllegalArgumentException("database URL is required");
    }
    if (maxPoolSize < 1) {
      throw new IllegalArgumentException("database pool size must be at least 1");
    }
    requirePositive(connectTimeout, "database connect timeout");
    requirePositive(lockTimeout, "database lock timeout");
    requirePositive(statementTimeout, "database statement timeout");
  }

  public static DatabaseConfig of(DatabaseUrl url) {
    return new DatabaseConfig(
        url,
        DEFAULT_MAX_POOL_SIZE,
        DEFAULT_CONNECT_TIMEOUT,
        DEFAULT_LOCK_TIMEOUT,
        DEFAULT_STATEMENT_TIMEOUT);
  }

  public DatabaseConfig withMaxPoolSize(int size) {
    return new DatabaseConfig(url, size, connectTimeout, lockTimeout, statementTimeout);
  }

  public DatabaseConfig withLockTimeout(Duration timeout) {
    return new DatabaseConfig(url, maxPoolSize, connectTimeout, timeout, statementTimeout);
  }

  private static void requirePositive(Duration value, String name) {
    if (value == null || value.isNegative() || value.isZero()) {
      throw new IllegalArgumentException(name + " must be positive");
    }
  }
}
