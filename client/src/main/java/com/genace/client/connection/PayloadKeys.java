package com.genace.client.connection;

import io.temporal.common.converter.CodecDataConverter;
import io.temporal.common.converter.DataConverter;
import io.temporal.common.converter.DefaultDataConverter;
import java.util.Base64;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.crypto.SecretKey;
import javax.crypto.spec.SecretKeySpec;

/**
 * The payload codec's keys, {@code GENACE_PAYLOAD_KEYS=id:base64key[,id:base64key…]}: AES-256 keys
 * (32 bytes each) named by an id; the first encrypts, every one decrypts, so a key is rotated by
 * putting a new one first and dropping the old one once no history needs it. {@link #toString()}
 * shows the ids only.
 */
public final class PayloadKeys {

  public static final String VARIABLE = "GENACE_PAYLOAD_KEYS";

  private final String encryptingId;
  private final Map<String, SecretKey> byId;

  private PayloadKeys(String encryptingId, Map<String, SecretKey> byId) {
    this.encryptingId = encryptingId;
    this.byId = Collections.unmodifiableMap(byId);
  }

  /**
   * Reads {@value #VARIABLE}; empty when it is unset or blank.
   *
   * @throws IllegalArgumentException naming the variable and the entry that is malformed (never a
   *     key's bytes)
   */
  public static Optional<PayloadKeys> fromEnvironment(Map<String, String> env) {
    String value = env.get(VARIABLE);
    if (value == null || value.isBlank()) {
      return Optional.empty();
    }
    return Optional.of(parse(value));
  }

  static PayloadKeys parse(String value) {
    Map<String, SecretKey> keys = new LinkedHashMap<>();
    for (String entry : value.split(",")) {
      String trimmed = entry.trim();
      int colon = trimmed.indexOf(':');
      String id = colon < 0 ? trimmed : trimmed.substring(0, colon);
      if (colon < 1 || !id.matches("[A-Za-z0-9._-]{1,64}")) {
        throw new IllegalArgumentException(
            VARIABLE + ": each entry is id:base64key, the id letters, digits, '.', '_' or '-'");
      }
      byte[] key;
      try {
        key = Base64.getDecoder().decode(trimmed.substring(colon + 1).trim());
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(VARIABLE + ": the key of '" + id + "' is not base64");
      }
      if (key.length != 32) {
        throw new IllegalArgumentException(
            VARIABLE + ": the key of '" + id + "' is " + key.length + " bytes; AES-256 needs 32");
      }
      if (keys.put(id, new SecretKeySpec(key, "AES")) != null) {
        throw new IllegalArgumentException(VARIABLE + ": the id '" + id + "' is given twice");
      }
    }
    // In the variable's order: the first encrypts.
    return new PayloadKeys(keys.keySet().iterator().next(), keys);
  }

  /**
   * No key: payloads are written in clear, and one encrypted by another process fails loudly,
   * naming its key's id, instead of reaching a converter that does not know its encoding.
   */
  public static PayloadKeys none() {
    return new PayloadKeys(null, Map.of());
  }

  /** The data converter for {@code keys}, or for {@link #none()} when there are none. */
  public static DataConverter dataConverter(Optional<PayloadKeys> keys) {
    return keys.orElseGet(PayloadKeys::none).dataConverter();
  }

  /** The id of the key new payloads are encrypted with; empty when payloads stay clear. */
  public Optional<String> encryptingId() {
    return Optional.ofNullable(encryptingId);
  }

  SecretKey encryptingKey() {
    return byId.get(encryptingId);
  }

  Optional<SecretKey> key(String id) {
    return Optional.ofNullable(byId.get(id));
  }

  /**
   * Temporal's default converter with every payload, failure messages included, encrypted ({@link
   * EncryptionCodec}).
   */
  public DataConverter dataConverter() {
    return new CodecDataConverter(
        DefaultDataConverter.newDefaultInstance(),
        List.of(new EncryptionCodec(this)),
        // Failure messages and stack traces are sealed too, when there is a key to seal them.
        encryptingId != null);
  }

  @Override
  public String toString() {
    return encryptingId == null
        ? VARIABLE + "(unset: payloads in clear)"
        : VARIABLE + "(encrypting with " + encryptingId + "; decrypting " + byId.keySet() + ")";
  }
}
