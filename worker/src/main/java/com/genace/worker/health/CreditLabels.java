package com.genace.worker.health;

import com.genace.activities.ledger.CreditEstimate;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The bounded label values of {@code genace_credits_committed_total{account, model}}: a series per
 * label pair lives as long as the process, so neither label may take a value per operation or per
 * customer without end.
 *
 * <ul>
 *   <li>{@code model}: a model named in {@code GENACE_MODEL_COSTS}, else {@code other} (its cost is
 *       {@code GENACE_DEFAULT_COST} anyway): as many values as the configuration lists, plus one;
 *   <li>{@code account}: the first {@value #ACCOUNTS} distinct accounts this process committed
 *       credits for, then {@code other}: at most {@value #ACCOUNTS} + 1 values per process. Which
 *       accounts get their own series depends on the order they come in, so a dashboard sums over
 *       {@code account} for the fleet and reads one account's series only where it exists; {@code
 *       ops spend --by account} has every account, from the ledger.
 * </ul>
 */
final class CreditLabels {

  /** Accounts with a series of their own, per process. */
  static final int ACCOUNTS = 50;

  static final String OTHER = "other";

  private final CreditEstimate estimate;
  private final Set<String> accounts = ConcurrentHashMap.newKeySet();

  CreditLabels(CreditEstimate estimate) {
    this.estimate = estimate;
  }

  String model(String model) {
    return estimate.lists(model) ? model : OTHER;
  }

  /**
   * The account's own value while fewer than {@value #ACCOUNTS} are kept (or it is one of them),
   * else {@code other}. Two threads racing for the last place may both get it: one series more at
   * most, once.
   */
  String account(String account) {
    if (accounts.contains(account)) {
      return account;
    }
    if (accounts.size() < ACCOUNTS && accounts.add(account)) {
      return account;
    }
    return accounts.contains(account) ? account : OTHER;
  }
}
