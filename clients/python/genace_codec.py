"""Genace's payload encryption for the Python Temporal SDK: the same format as the worker's
(com.genace.client.connection.EncryptionCodec and PayloadKeys), so a Python client reads and
writes what a worker with GENACE_PAYLOAD_KEYS reads and writes.

    client = await Client.connect(address, data_converter=data_converter_from_env())

GENACE_PAYLOAD_KEYS=id:base64key[,id:base64key...]: AES-256 keys (32 bytes, standard base64)
named by ids of letters, digits, '.', '_' or '-' (at most 64). The first key encrypts, every key
decrypts. An encrypted payload has the metadata `encoding: binary/encrypted` and
`encryption-key-id: <id>`; its data is a 12-byte random nonce followed by the AES-GCM ciphertext
and its 16-byte tag, the key id's UTF-8 bytes being the authenticated data; the plaintext is the
whole original payload (metadata and data) as a serialized temporal.api.common.v1.Payload.
Needs `cryptography` (clients/python/requirements.txt) besides temporalio.
"""

import base64
import binascii
import os
import re
from collections.abc import Mapping, Sequence

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from google.protobuf.message import DecodeError
from temporalio.api.common.v1 import Payload
from temporalio.converter import (
    DataConverter,
    DefaultFailureConverterWithEncodedAttributes,
    PayloadCodec,
)

VARIABLE = "GENACE_PAYLOAD_KEYS"
ENCODING = b"binary/encrypted"
KEY_ID = "encryption-key-id"
NONCE_BYTES = 12
TAG_BYTES = 16
_ID = re.compile(r"[A-Za-z0-9._-]{1,64}")


def parse_keys(value: str) -> dict[str, bytes]:
    """The keys of a GENACE_PAYLOAD_KEYS value, in its order (the first encrypts). Raises ValueError
    with PayloadKeys' messages, naming the entry's id but never a key's bytes."""
    keys: dict[str, bytes] = {}
    for entry in value.split(","):
        entry = entry.strip()
        colon = entry.find(":")
        key_id = entry if colon < 0 else entry[:colon]
        if colon < 1 or not _ID.fullmatch(key_id):
            raise ValueError(
                f"{VARIABLE}: each entry is id:base64key, the id letters, digits, '.', '_' or '-'"
            )
        encoded = entry[colon + 1 :].strip()
        try:
            # Java's decoder takes the padding as optional; Python's wants it.
            key = base64.b64decode(encoded + "=" * (-len(encoded) % 4), validate=True)
        except (binascii.Error, ValueError):
            raise ValueError(f"{VARIABLE}: the key of '{key_id}' is not base64") from None
        if len(key) != 32:
            raise ValueError(f"{VARIABLE}: the key of '{key_id}' is {len(key)} bytes; AES-256 needs 32")
        if key_id in keys:
            raise ValueError(f"{VARIABLE}: the id '{key_id}' is given twice")
        keys[key_id] = key
    return keys


class EncryptionCodec(PayloadCodec):
    """AES-256-GCM over whole payloads; clear payloads (written before encryption was turned on)
    are decoded as they are."""

    def __init__(self, keys: Mapping[str, bytes]):
        if not keys:
            raise ValueError(f"{VARIABLE}: no key")
        self._encrypting_id = next(iter(keys))
        self._ciphers = {key_id: AESGCM(key) for key_id, key in keys.items()}

    async def encode(self, payloads: Sequence[Payload]) -> list[Payload]:
        return [self._encrypt(p) for p in payloads]

    async def decode(self, payloads: Sequence[Payload]) -> list[Payload]:
        return [self._decrypt(p) for p in payloads]

    def _encrypt(self, payload: Payload) -> Payload:
        key_id = self._encrypting_id
        # A fresh random nonce per payload: GCM must never see a nonce twice under one key.
        nonce = os.urandom(NONCE_BYTES)
        # The key id as authenticated data: a payload cannot be relabelled with another id.
        sealed = self._ciphers[key_id].encrypt(nonce, payload.SerializeToString(), key_id.encode())
        return Payload(
            metadata={"encoding": ENCODING, KEY_ID: key_id.encode()},
            data=nonce + sealed,  # AESGCM appends the 16-byte tag to the ciphertext
        )

    def _decrypt(self, payload: Payload) -> Payload:
        if payload.metadata.get("encoding") != ENCODING:
            return payload
        key_id = payload.metadata.get(KEY_ID, b"").decode("utf-8", "replace")
        cipher = self._ciphers.get(key_id)
        if cipher is None:
            raise ValueError(
                f"payload encrypted with key '{key_id}', which {VARIABLE} here does not hold: "
                "add it (every listed key decrypts)"
            )
        data = payload.data
        if len(data) < NONCE_BYTES + TAG_BYTES:
            raise ValueError(f"encrypted payload of key '{key_id}' is truncated")
        try:
            plain = cipher.decrypt(data[:NONCE_BYTES], data[NONCE_BYTES:], key_id.encode())
        except InvalidTag:
            raise ValueError(
                f"payload of key '{key_id}' does not decrypt: tampered, or another key of that id"
            ) from None
        original = Payload()
        try:
            original.ParseFromString(plain)
        except DecodeError as e:
            raise ValueError(f"decrypted payload of key '{key_id}' is not a payload") from e
        return original


def data_converter_from_env(env: Mapping[str, str] = os.environ) -> DataConverter:
    """Temporal's default data converter, with EncryptionCodec when GENACE_PAYLOAD_KEYS is set (not
    blank). Failure messages and stack traces are then encoded too, as the worker's are
    (Java's CodecDataConverter with encodeFailureAttributes): moved into the failure's encoded
    attributes, which the codec encrypts."""
    value = env.get(VARIABLE, "")
    if not value.strip():
        return DataConverter.default
    return DataConverter(
        payload_codec=EncryptionCodec(parse_keys(value)),
        failure_converter_class=DefaultFailureConverterWithEncodedAttributes,
    )
