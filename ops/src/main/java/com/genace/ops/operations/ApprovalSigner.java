package com.genace.ops.operations;

import com.genace.client.model.ReviewDecision;
import com.genace.client.review.Approval;
import com.genace.client.review.ApprovalKeys;
import com.genace.client.review.ReviewResolution;
import com.genace.ops.ConfigurationException;
import com.genace.ops.Environment;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;

/**
 * Signs a decision that spends again ({@code not_submitted}) with the operator's Ed25519 key at
 * {@code GENACE_OPERATOR_KEY}, as the approver named {@code --by}: over the operation, the
 * decision, the digest of the review evidence the ledger shows now (what the operator read), and an
 * expiry an hour ahead. Other decisions need no signature; without the variable nothing is signed
 * (the workers refuse it once an approver is registered, naming why).
 */
final class ApprovalSigner {

  /** How long a signed approval holds: to read the evidence, decide and paste. */
  static final Duration VALID_FOR = Duration.ofHours(1);

  static final String KEY_VARIABLE = "GENACE_OPERATOR_KEY";

  private final Optional<PrivateKey> key;
  private final Clock clock;

  private ApprovalSigner(Optional<PrivateKey> key, Clock clock) {
    this.key = key;
    this.clock = clock;
  }

  static ApprovalSigner fromEnvironment(Environment env) {
    Optional<String> file = env.get(KEY_VARIABLE).filter(f -> !f.isBlank());
    if (file.isEmpty()) {
      return new ApprovalSigner(Optional.empty(), Clock.systemUTC());
    }
    try {
      return new ApprovalSigner(
          Optional.of(ApprovalKeys.privateKey(Files.readString(Path.of(file.get())))),
          Clock.systemUTC());
    } catch (IOException e) {
      throw new ConfigurationException(KEY_VARIABLE + ": cannot read " + file.get() + ": " + e);
    } catch (IllegalArgumentException e) {
      throw new ConfigurationException(KEY_VARIABLE + ": " + file.get() + " is " + e.getMessage());
    }
  }

  boolean hasKey() {
    return key.isPresent();
  }

  /** {@code resolution} of {@code operationId}, signed when it spends again and a key is set. */
  ReviewResolution signed(ReviewResolution resolution, String operationId, LedgerAccess access) {
    if (key.isEmpty() || resolution.parsedDecision().orElse(null) != ReviewDecision.NOT_SUBMITTED) {
      return resolution;
    }
    String evidence =
        access
            .ledger(ledger -> ledger.approvers().latestEvidenceDigest(operationId))
            .orElse(Approval.NO_EVIDENCE);
    return resolution.withApproval(
        Approval.signed(
            key.get(),
            resolution.resolver(),
            operationId,
            ReviewDecision.NOT_SUBMITTED.wire(),
            evidence,
            clock.instant().plus(VALID_FOR)));
  }
}
