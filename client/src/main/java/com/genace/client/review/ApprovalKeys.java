package com.genace.client.review;

import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.spec.PKCS8EncodedKeySpec;
import java.security.spec.X509EncodedKeySpec;
import java.util.Base64;

/**
 * Approvers' Ed25519 keys as PEM text: a private key in PKCS #8 ({@code BEGIN PRIVATE KEY}), a
 * public key in X.509 SubjectPublicKeyInfo ({@code BEGIN PUBLIC KEY}), the forms {@code openssl
 * genpkey -algorithm ed25519} and {@code openssl pkey -pubout} write. The public key is kept in the
 * ledger as its base64 body.
 */
public final class ApprovalKeys {

  private static final String PRIVATE = "PRIVATE KEY";
  private static final String PUBLIC = "PUBLIC KEY";

  private ApprovalKeys() {}

  public static KeyPair generate() {
    try {
      return KeyPairGenerator.getInstance(Approval.ALGORITHM).generateKeyPair();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("this JDK has no Ed25519", e);
    }
  }

  public static PrivateKey privateKey(String pem) {
    try {
      return KeyFactory.getInstance(Approval.ALGORITHM)
          .generatePrivate(new PKCS8EncodedKeySpec(body(pem, PRIVATE)));
    } catch (GeneralSecurityException e) {
      throw new IllegalArgumentException("not an Ed25519 private key (PKCS #8 PEM)", e);
    }
  }

  /** A public key from PEM text, or from the base64 body the ledger keeps. */
  public static PublicKey publicKey(String pemOrBase64) {
    try {
      byte[] der =
          pemOrBase64.contains("-----BEGIN")
              ? body(pemOrBase64, PUBLIC)
              : Base64.getMimeDecoder().decode(pemOrBase64.trim());
      return KeyFactory.getInstance(Approval.ALGORITHM).generatePublic(new X509EncodedKeySpec(der));
    } catch (GeneralSecurityException | IllegalArgumentException e) {
      throw new IllegalArgumentException("not an Ed25519 public key (X.509 PEM)", e);
    }
  }

  /** The base64 body the ledger keeps for a public key. */
  public static String stored(PublicKey key) {
    return Base64.getEncoder().encodeToString(key.getEncoded());
  }

  public static String pem(PrivateKey key) {
    return pem(PRIVATE, key.getEncoded());
  }

  public static String pem(PublicKey key) {
    return pem(PUBLIC, key.getEncoded());
  }

  private static String pem(String label, byte[] der) {
    return "-----BEGIN "
        + label
        + "-----\n"
        + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der)
        + "\n-----END "
        + label
        + "-----\n";
  }

  private static byte[] body(String pem, String label) {
    String begin = "-----BEGIN " + label + "-----";
    String end = "-----END " + label + "-----";
    int from = pem.indexOf(begin);
    int to = pem.indexOf(end);
    if (from < 0 || to < from) {
      throw new IllegalArgumentException("no " + begin + " block");
    }
    return Base64.getMimeDecoder().decode(pem.substring(from + begin.length(), to));
  }
}
