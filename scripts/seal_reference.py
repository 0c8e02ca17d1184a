#!/usr/bin/env python3
"""An independent reader and writer of the Rampart sealed format (docs/seal-format.md), key-encryption-key mode.

Written from the spec alone with pyca/cryptography, so that the Swift implementation is checked against a second
one (Tests/RampartSealTests/ReferenceTests.swift runs it when python3 and cryptography are installed).

    seal_reference.py seal KEK_HEX KEY_ID SEGMENT_SIZE ALGORITHM < plaintext > sealed
    seal_reference.py open KEK_HEX KEY_ID < sealed > plaintext        (exit 1 on any failure)
"""
import os
import struct
import sys

from cryptography.hazmat.primitives import hashes, hmac
from cryptography.hazmat.primitives.ciphers.aead import AESGCM, ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

MAGIC = bytes([0x89, 0x52, 0x53, 0x45, 0x41, 0x4C, 0x0D, 0x0A])
CIPHERS = {1: AESGCM, 2: ChaCha20Poly1305}


def hkdf(key, salt, info):
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=salt, info=info).derive(key)


def mac(key, data):
    h = hmac.HMAC(key, hashes.SHA256())
    h.update(data)
    return h.finalize()


def nonce(prefix, index, last):
    return prefix + struct.pack(">I", index) + (b"\x01" if last else b"\x00")


def seal(kek, key_id, segment_size, algorithm, plaintext):
    data_key, salt, prefix = os.urandom(32), os.urandom(32), os.urandom(7)
    stanza = b"\x02" + bytes([len(key_id)]) + key_id
    wrap_nonce = os.urandom(12)
    wrapped = wrap_nonce + AESGCM(kek).encrypt(wrap_nonce, data_key, MAGIC + b"\x01" + stanza)
    length = 8 + 1 + 1 + 2 + 4 + 32 + 7 + len(stanza) + len(wrapped) + 32
    header = MAGIC + bytes([1, algorithm]) + struct.pack(">HI", length, segment_size) + salt + prefix
    header += stanza + wrapped
    header += mac(hkdf(data_key, salt, b"rampart-seal v1 header"), header)
    cipher = CIPHERS[algorithm](hkdf(data_key, salt, b"rampart-seal v1 payload" + bytes([algorithm])))
    chunks = [plaintext[i:i + segment_size] for i in range(0, len(plaintext), segment_size)] or [b""]
    body = b"".join(
        cipher.encrypt(nonce(prefix, i, i == len(chunks) - 1), chunk, None) for i, chunk in enumerate(chunks))
    return header + body


def open_(kek, key_id, sealed):
    if sealed[:8] != MAGIC or sealed[8] != 1:
        raise ValueError("not a version-1 sealed stream")
    algorithm = sealed[9]
    length, segment_size = struct.unpack(">HI", sealed[10:16])
    header, body = sealed[:length], sealed[length:]
    salt, prefix = header[16:48], header[48:55]
    if header[55] != 2 or header[57:57 + header[56]] != key_id:
        raise ValueError("not sealed with this key id")
    stanza = header[55:57 + header[56]]
    wrapped = header[57 + header[56]:length - 32]
    data_key = AESGCM(kek).decrypt(wrapped[:12], wrapped[12:], MAGIC + b"\x01" + stanza)
    if mac(hkdf(data_key, salt, b"rampart-seal v1 header"), header[:-32]) != header[-32:]:
        raise ValueError("header MAC")
    cipher = CIPHERS[algorithm](hkdf(data_key, salt, b"rampart-seal v1 payload" + bytes([algorithm])))
    step = segment_size + 16
    segments = [body[i:i + step] for i in range(0, len(body), step)]
    if not segments:
        raise ValueError("truncated")
    return b"".join(
        cipher.decrypt(nonce(prefix, i, i == len(segments) - 1), segment, None) for i, segment in enumerate(segments))


def main():
    command, kek, key_id = sys.argv[1], bytes.fromhex(sys.argv[2]), sys.argv[3].encode()
    data = sys.stdin.buffer.read()
    try:
        if command == "seal":
            out = seal(kek, key_id, int(sys.argv[4]), int(sys.argv[5]), data)
        else:
            out = open_(kek, key_id, data)
    except Exception as error:  # any failure is a verdict for the caller
        print(f"seal_reference.py: {error!r}", file=sys.stderr)
        sys.exit(1)
    sys.stdout.buffer.write(out)


if __name__ == "__main__":
    main()
