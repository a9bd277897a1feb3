package com.genace.workflows.model;

import java.util.Locale;

/** A Genace job's status. Snapshots only ever move forward: queued, then running, then terminal. */
public enum RemoteStatus {
  QUEUED(0),
  RUNNING(1),
  SUCCEEDED(2),
  FAILED(2),
  CANCELED(2);

  private final int rank;

  RemoteStatus(int rank) {
    this.rank = rank;
  }

  /** Order of snapshots: a snapshot may replace another only with a higher rank. */
  public int rank() {
    return rank;
  }

  public boolean isTerminal() {
    return rank == 2;
  }

  /** The value on the wire and in the table: {@code queued}, {@code running}, ... */
  public String wire() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * Parses a wire value.
   *
   * @throws IllegalArgumentException for an unknown status
   */
  public static RemoteStatus parse(String value) {
    for (RemoteStatus status : values()) {
      if (status.wire().equals(value)) {
        return status;
      }
    }
    throw new IllegalArgumentException("unknown remote status '" + value + "'");
  }
}
