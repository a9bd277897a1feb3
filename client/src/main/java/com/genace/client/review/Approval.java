package com.genace.client.review;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.time.Instant;
import java.util.Base64;

/**
 * A registered approver's Ed25519 signature over one decision that can spend again: which
 * operation, which decision, a digest of the review's evidence it answers and until when it holds.
 * Signed and verified with the JDK's {@code java.security} ({@code Ed25519}).
 *
 * @param approver the name the approver's public key is registered under ({@code ops approvers})
 * @param operationId the operation whose review it answers
 * @param decision the decision it approves ({@code not_submitted})
 * @param evidenceSha256 the SHA-256 (hex) of the review evidence the approver saw, as the ledger
 *     keeps it, or {@link #NO_EVIDENCE}
 * @param expiresAt when it stops holding (ISO-8601)
 * @param signature the signature of {@link #message()}, base64
 */
public record Approval(
    String approver,
    String operationId,
    String decision,
    String evidenceSha256,
    String expiresAt,
    String signature) {

  /** The digest an approval names when the review holds no evidence yet. */
  public static final String NO_EVIDENCE = "none";

  static final String ALGORITHM = "Ed25519";

  /** What is signed: each field on its own line, after a label that versions the format. */
  public String message() {
    return String.join(
        "\n", "genace-approval-v1", approver, operationId, decision, evidenceSha256, expiresAt);
  }

  /** The approval of these fields, signed with {@code key}. */
  public static Approval signed(
      PrivateKey key,
      String approver,
      String operationId,
      String decision,
      String evidenceSha256,
      Instant expiresAt) {
    Approval unsigned =
        new Approval(approver, operationId, decision, evidenceSha256, expiresAt.toString(), null);
    try {
      Signature signer = Signature.getInstance(ALGORITHM);
      signer.initSign(key);
      signer.update(unsigned.message().getBytes(StandardCharsets.UTF_8));
      return new Approval(
          approver,
          operationId,
          decision,
          evidenceSha256,
          unsigned.expiresAt(),
          Base64.getEncoder().encodeToString(signer.sign()));
    } catch (GeneralSecurityException e) {
      throw new IllegalArgumentException("cannot sign with this key: " + e.getMessage(), e);
    }
  }

  /** Whether {@link #signature} is {@code key}'s signature of {@link #message()}. */
  public boolean signedBy(PublicKey key) {
    if (signature == null || hasNull()) {
      return false;
    }
    try {
      Signature verifier = Signature.getInstance(ALGORITHM);
      verifier.initVerify(key);
      verifier.update(message().getBytes(StandardCharsets.UTF_8));
      return verifier.verify(Base64.getDecoder().decode(signature));
    } catch (GeneralSecurityException | IllegalArgumentException e) {
      return false; // not a signature of this key, or not base64
    }
  }

  private boolean hasNull() {
    return approver == null
        || operationId == null
        || decision == null
        || evidenceSha256 == null
        || expiresAt == null;
  }
}
