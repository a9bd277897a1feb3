package com.genace.worker;

import com.genace.worker.config.WorkerConfig;
import com.genace.worker.telemetry.JsonLogging;
import com.genace.worker.telemetry.Telemetry;
import com.genace.worker.temporal.TemporalTarget;
import java.time.Clock;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * {@code ./genace worker}: runs until SIGTERM, SIGINT or SIGHUP, then drains and exits 0. Logs are
 * JSON lines on standard output; OpenTelemetry is configured from the {@code OTEL_*} variables.
 */
public final class WorkerMain {

  private WorkerMain() {}

  /**
   * @throws IllegalArgumentException naming the variable when the configuration is invalid
   * @throws StartupFailure when a startup check fails in a way that waiting will not fix
   */
  public static int run(Map<String, String> env) throws InterruptedException {
    WorkerConfig config = WorkerConfig.fromEnvironment(env);
    JsonLogging.install();
    CountDownLatch stop = new CountDownLatch(1);
    Thread main = Thread.currentThread();
    Telemetry telemetry = Telemetry.install(env);
    try (telemetry;
        WorkerProcess process =
            new WorkerProcess(config, TemporalTarget.of(config.temporal()), Clock.systemUTC())) {
      SignalHandler onSignal =
          signal -> {
            stop.countDown();
            if (!process.state().started()) {
              main.interrupt(); // nothing to drain yet: stop waiting for the startup checks
            }
          };
      Signal.handle(new Signal("TERM"), onSignal);
      Signal.handle(new Signal("INT"), onSignal);
      Signal.handle(new Signal("HUP"), onSignal);
      try {
        process.start();
      } catch (InterruptedException e) {
        return 0;
      } catch (StartupFailure e) {
        if (stop.getCount() == 0) {
          return 0; // stopped by a signal while checking Temporal: not a failure
        }
        throw e;
      }
      stop.await();
      process.drain();
    }
    return 0;
  }
}
