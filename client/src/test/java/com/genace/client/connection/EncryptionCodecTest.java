package com.genace.client.connection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.temporal.api.common.v1.Payload;
import io.temporal.common.converter.DataConverter;
import io.temporal.payload.codec.PayloadCodecException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The AES-256-GCM payload codec and its keys, with the JDK's cipher. */
class EncryptionCodecTest {

  private static final String K1 = key('1');
  private static final String K2 = key('2');

  private static String key(char fill) {
    return Base64.getEncoder()
        .encodeToString(String.valueOf(fill).repeat(32).getBytes(StandardCharsets.US_ASCII));
  }

  private static PayloadKeys keys(String value) {
    return PayloadKeys.fromEnvironment(Map.of(PayloadKeys.VARIABLE, value)).orElseThrow();
  }

  private static Payload plain(String text) {
    return Payload.newBuilder()
        .putMetadata("encoding", ByteString.copyFromUtf8("json/plain"))
        .setData(ByteString.copyFromUtf8(text))
        .build();
  }

  @Test
  void a_payload_is_encrypted_under_the_first_key_and_decrypts_to_itself() {
    EncryptionCodec codec = new EncryptionCodec(keys("k1:" + K1 + ",k0:" + K2));
    Payload original = plain("{\"prompt\":\"a secret red fox\"}");

    Payload sealed = codec.encode(List.of(original)).get(0);

    assertThat(sealed.getMetadataMap().get("encoding").toStringUtf8())
        .isEqualTo("binary/encrypted");
    assertThat(sealed.getMetadataMap().get("encryption-key-id").toStringUtf8()).isEqualTo("k1");
    assertThat(sealed.getData().toStringUtf8()).doesNotContain("secret", "json/plain");
    assertThat(codec.decode(List.of(sealed))).containsExactly(original);
    assertThat(codec.encode(List.of(original)).get(0).getData())
        .as("a fresh nonce each time")
        .isNotEqualTo(sealed.getData());
  }

  @Test
  void a_rotated_key_still_decrypts_what_the_old_one_encrypted() {
    Payload sealedWithOld =
        new EncryptionCodec(keys("k1:" + K1)).encode(List.of(plain("old"))).get(0);
    EncryptionCodec rotated = new EncryptionCodec(keys("k2:" + K2 + ",k1:" + K1));

    assertThat(rotated.decode(List.of(sealedWithOld))).containsExactly(plain("old"));
    assertThat(
            rotated.encode(List.of(plain("new"))).get(0).getMetadataMap().get("encryption-key-id"))
        .isEqualTo(ByteString.copyFromUtf8("k2"));
  }

  @Test
  void a_payload_of_a_key_not_held_fails_loudly_naming_it_and_clear_ones_pass() {
    Payload sealed = new EncryptionCodec(keys("k1:" + K1)).encode(List.of(plain("x"))).get(0);
    EncryptionCodec other = new EncryptionCodec(keys("k2:" + K2));

    assertThatThrownBy(() -> other.decode(List.of(sealed)))
        .isInstanceOf(PayloadCodecException.class)
        .hasMessageContaining("payload encrypted with key 'k1'")
        .hasMessageContaining("GENACE_PAYLOAD_KEYS");
    assertThat(other.decode(List.of(plain("clear")))).containsExactly(plain("clear"));
  }

  @Test
  void a_tampered_payload_or_one_moved_under_another_key_id_does_not_decrypt() {
    EncryptionCodec codec = new EncryptionCodec(keys("k1:" + K1 + ",k2:" + K1));
    Payload sealed = codec.encode(List.of(plain("x"))).get(0);
    byte[] data = sealed.getData().toByteArray();
    data[data.length - 1] ^= 1;
    Payload tampered = sealed.toBuilder().setData(ByteString.copyFrom(data)).build();
    Payload renamed =
        sealed.toBuilder().putMetadata("encryption-key-id", ByteString.copyFromUtf8("k2")).build();

    assertThatThrownBy(() -> codec.decode(List.of(tampered)))
        .isInstanceOf(PayloadCodecException.class)
        .hasMessageContaining("does not decrypt");
    assertThatThrownBy(() -> codec.decode(List.of(renamed)))
        .as("the key id is authenticated")
        .isInstanceOf(PayloadCodecException.class);
  }

  @Test
  void the_data_converter_round_trips_values_through_the_codec() {
    DataConverter converter = keys("k1:" + K1).dataConverter();

    Optional<Payload> payload = converter.toPayload(Map.of("prompt", "a secret red fox"));

    assertThat(payload.orElseThrow().getData().toStringUtf8()).doesNotContain("secret");
    assertThat(converter.fromPayload(payload.get(), Map.class, Map.class))
        .isEqualTo(Map.of("prompt", "a secret red fox"));
  }

  @Test
  void malformed_keys_are_refused_naming_the_variable_and_never_showing_a_key() {
    assertThatThrownBy(() -> keys("k1:not-base64!"))
        .hasMessage("GENACE_PAYLOAD_KEYS: the key of 'k1' is not base64");
    assertThatThrownBy(() -> keys("k1:" + Base64.getEncoder().encodeToString(new byte[16])))
        .hasMessage("GENACE_PAYLOAD_KEYS: the key of 'k1' is 16 bytes; AES-256 needs 32");
    assertThatThrownBy(() -> keys("k1:" + K1 + ",k1:" + K2))
        .hasMessage("GENACE_PAYLOAD_KEYS: the id 'k1' is given twice");
    assertThatThrownBy(() -> keys(K1))
        .hasMessageStartingWith("GENACE_PAYLOAD_KEYS: each entry is id:base64key");
    assertThat(keys("k1:" + K1 + ",k0:" + K2).toString())
        .isEqualTo("GENACE_PAYLOAD_KEYS(encrypting with k1; decrypting [k1, k0])")
        .doesNotContain(K1);
    assertThat(PayloadKeys.fromEnvironment(Map.of())).isEmpty();
  }
}
