package com.genace.worker.config;

import com.genace.activities.allowance.AllowancePolicy;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.TreeMap;

/**
 * A short digest of the settings every worker of a fleet must share: the allowance and model costs
 * (what a dispatch may spend), the lease and the timeouts (how long a claim lasts and what may
 * outlive it). Two workers with different fingerprints enforce different rules; the status document
 * shows it beside the configuration version.
 */
final class FleetFingerprint {

  private FleetFingerprint() {}

  static String of(WorkerConfig config) {
    AllowancePolicy allowance = config.allowance();
    String canonical =
        String.join(
            ";",
            "window=" + allowance.window().toSeconds(),
            "credits=" + allowance.globalCredits(),
            "account_credits=" + allowance.accountCredits(),
            "max_in_flight=" + allowance.globalMaxInFlight(),
            "account_max_in_flight=" + allowance.accountMaxInFlight(),
            "model_costs=" + new TreeMap<>(allowance.modelCosts()),
            "default_cost=" + allowance.defaultCost(),
            "lease=" + config.leaseDuration().toSeconds(),
            "read_timeout=" + config.genaceReadTimeout().toSeconds(),
            "drain=" + config.drainTimeout().toSeconds());
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256").digest(canonical.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(digest, 0, 8);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is part of every Java runtime", e);
    }
  }
}
