package com.genace.activities.controls;

import com.genace.activities.genace.AccountProblem;
import com.genace.activities.genace.GenaceAuthenticationException;
import com.genace.activities.genace.GenaceClient;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Closes a {@code genace_auth_refused} circuit once the key works again, with the free model-list
 * GET (it verifies authentication and never creates a render). Run it periodically on every worker;
 * a probe that loses the race to another worker's changes nothing. A credits circuit is left to the
 * operator: nothing free tells whether the balance was topped up.
 */
public final class CircuitProbe implements Runnable, AutoCloseable {

  /** How often workers probe an open circuit: a free GET each, never a POST. */
  public static final Duration INTERVAL = Duration.ofSeconds(10);

  private static final Logger log = LoggerFactory.getLogger(CircuitProbe.class);

  private final DispatchCircuit circuit;
  private final GenaceClient genace;
  // A thread of its own: a probe waiting on a slow Genace must not delay the readiness loop.
  private final ScheduledExecutorService schedule =
      Executors.newSingleThreadScheduledExecutor(
          runnable -> {
            Thread thread = new Thread(runnable, "genace-circuit-probe");
            thread.setDaemon(true);
            return thread;
          });

  public CircuitProbe(DispatchCircuit circuit, GenaceClient genace) {
    this.circuit = circuit;
    this.genace = genace;
  }

  /** Probes every {@code interval} until {@link #close}. */
  public void start(Duration interval) {
    schedule.scheduleWithFixedDelay(
        this, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
  }

  @Override
  public void close() {
    schedule.shutdownNow();
  }

  /** One probe; never throws, so that a scheduler keeps running it. */
  @Override
  public void run() {
    try {
      probe();
    } catch (RuntimeException e) {
      log.warn("dispatch circuit probe failed: {}", e.getMessage());
    }
  }

  /**
   * @return true if this probe closed the circuit
   */
  public boolean probe() {
    Optional<DispatchCircuit.Trip> trip = circuit.current();
    if (trip.isEmpty() || trip.get().problem() != AccountProblem.AUTHENTICATION) {
      return false;
    }
    try {
      genace.listModels();
    } catch (GenaceAuthenticationException e) {
      log.info("dispatch circuit stays open: Genace still refuses the key ({})", e.getMessage());
      return false;
    }
    boolean closed = circuit.close(trip.get(), "probe: the model list answered, the key works");
    if (closed) {
      log.info(
          "dispatch circuit closed: the model list answered, the key works again (opened {} by {})",
          trip.get().pause().since(),
          trip.get().trippedBy());
    }
    return closed;
  }
}
