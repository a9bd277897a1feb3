package com.genace.ops.faults.support;

/**
 * The seed of a drill's random choices (the simulator's faults, which operation meets which fault):
 * {@code GENACE_FAULTS_SEED} to replay a failure, otherwise a new one that the drill prints first
 * and its figures repeat.
 */
public final class Seeds {

  public static final String VARIABLE = "GENACE_FAULTS_SEED";

  private Seeds() {}

  public static long next() {
    String given = System.getenv(VARIABLE);
    return given == null || given.isBlank() ? System.nanoTime() : Long.parseLong(given.trim());
  }
}
