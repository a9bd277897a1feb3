package com.genace.client.connection;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import io.temporal.api.common.v1.Payload;
import io.temporal.payload.codec.PayloadCodec;
import io.temporal.payload.codec.PayloadCodecException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.List;
import javax.crypto.Cipher;
import javax.crypto.SecretKey;
import javax.crypto.spec.GCMParameterSpec;

/**
 * Encrypts every payload with AES-256-GCM (the JDK's {@code AES/GCM/NoPadding}), after Temporal's
 * convention for encryption codecs: the whole payload (its metadata and data) is the plaintext, the
 * result's metadata says {@code encoding: binary/encrypted} and {@code encryption-key-id}, its data
 * is the 12-byte nonce followed by the ciphertext and its 16-byte tag. The key id is the
 * authenticated data, so a payload cannot be passed off under another key. A payload that is not
 * encrypted (written before the codec was turned on) is read as it is; one encrypted with a key
 * this process does not hold fails loudly, naming the key's id.
 */
public final class EncryptionCodec implements PayloadCodec {

  public static final String ENCODING = "binary/encrypted";
  public static final String KEY_ID = "encryption-key-id";

  private static final String METADATA_ENCODING = "encoding";
  private static final int NONCE_BYTES = 12;
  private static final int TAG_BITS = 128;

  private final PayloadKeys keys;
  private final SecureRandom random = new SecureRandom();

  public EncryptionCodec(PayloadKeys keys) {
    this.keys = keys;
  }

  @Override
  public List<Payload> encode(List<Payload> payloads) {
    return payloads.stream().map(this::encrypt).toList();
  }

  @Override
  public List<Payload> decode(List<Payload> payloads) {
    return payloads.stream().map(this::decrypt).toList();
  }

  private Payload encrypt(Payload payload) {
    if (keys.encryptingId().isEmpty()) {
      return payload;
    }
    byte[] nonce = new byte[NONCE_BYTES];
    random.nextBytes(nonce);
    String id = keys.encryptingId().get();
    byte[] sealed =
        crypt(Cipher.ENCRYPT_MODE, keys.encryptingKey(), nonce, id, payload.toByteArray());
    return Payload.newBuilder()
        .putMetadata(METADATA_ENCODING, ByteString.copyFromUtf8(ENCODING))
        .putMetadata(KEY_ID, ByteString.copyFromUtf8(id))
        .setData(ByteString.copyFrom(nonce).concat(ByteString.copyFrom(sealed)))
        .build();
  }

  private Payload decrypt(Payload payload) {
    ByteString encoding = payload.getMetadataMap().get(METADATA_ENCODING);
    if (encoding == null || !ENCODING.equals(encoding.toStringUtf8())) {
      return payload;
    }
    ByteString idBytes = payload.getMetadataMap().get(KEY_ID);
    String id = idBytes == null ? "" : idBytes.toStringUtf8();
    SecretKey key =
        keys.key(id)
            .orElseThrow(
                () ->
                    new PayloadCodecException(
                        "payload encrypted with key '"
                            + id
                            + "', which "
                            + PayloadKeys.VARIABLE
                            + " here does not hold: add it (every listed key decrypts)"));
    byte[] data = payload.getData().toByteArray();
    if (data.length < NONCE_BYTES + TAG_BITS / 8) {
      throw new PayloadCodecException("encrypted payload of key '" + id + "' is truncated");
    }
    byte[] nonce = Arrays.copyOfRange(data, 0, NONCE_BYTES);
    byte[] sealed = Arrays.copyOfRange(data, NONCE_BYTES, data.length);
    try {
      return Payload.parseFrom(crypt(Cipher.DECRYPT_MODE, key, nonce, id, sealed));
    } catch (InvalidProtocolBufferException e) {
      throw new PayloadCodecException("decrypted payload of key '" + id + "' is not a payload", e);
    }
  }

  private static byte[] crypt(int mode, SecretKey key, byte[] nonce, String id, byte[] input) {
    try {
      Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
      cipher.init(mode, key, new GCMParameterSpec(TAG_BITS, nonce));
      cipher.updateAAD(id.getBytes(StandardCharsets.UTF_8));
      return cipher.doFinal(input);
    } catch (GeneralSecurityException e) {
      throw new PayloadCodecException(
          mode == Cipher.DECRYPT_MODE
              ? "payload of key '" + id + "' does not decrypt: tampered, or another key of that id"
              : "cannot encrypt with key '" + id + "'",
          e);
    }
  }
}
