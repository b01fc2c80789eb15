"""Noise_XXpsk3_25519_ChaChaPoly_SHA256 (Noise Protocol Framework, revision 34), as protocol.md
section 4 uses it: the symmetric state, both sides of the handshake, the record sealer with its
rekeying (section 4.2), and the node ID of a static key (section 4.1)."""

import hashlib
import secrets
import struct

from .checking import Mismatch
from .primitives import aead_open, aead_seal, noise_hkdf, noise_nonce, x25519_dh, x25519_public


# Noise_XXpsk3_25519_ChaChaPoly_SHA256.

PROTOCOL_NAME = b"Noise_XXpsk3_25519_ChaChaPoly_SHA256"


class SymmetricState:
    def __init__(self):
        name = PROTOCOL_NAME
        self.h = name + bytes(32 - len(name)) if len(name) <= 32 else hashlib.sha256(name).digest()
        self.ck = self.h
        self.k = None
        self.n = 0

    def mix_hash(self, data):
        self.h = hashlib.sha256(self.h + data).digest()

    def mix_key(self, ikm):
        self.ck, self.k = noise_hkdf(self.ck, ikm, 2)
        self.n = 0

    def mix_key_and_hash(self, ikm):
        self.ck, temp_h, self.k = noise_hkdf(self.ck, ikm, 3)
        self.mix_hash(temp_h)
        self.n = 0

    def encrypt_and_hash(self, plaintext):
        if self.k is None:
            out = plaintext
        else:
            out = aead_seal(self.k, noise_nonce(self.n), plaintext, self.h)
            self.n += 1
        self.mix_hash(out)
        return out

    def decrypt_and_hash(self, ciphertext):
        if self.k is None:
            out = ciphertext
        else:
            out = aead_open(self.k, noise_nonce(self.n), ciphertext, self.h)
            self.n += 1
        self.mix_hash(ciphertext)
        return out

    def split(self):
        return noise_hkdf(self.ck, b"", 2)


class Handshake:
    """One side of Noise_XXpsk3: -> e / <- e, ee, s, es / -> s, se, psk. Empty payloads."""

    def __init__(self, initiator, static_private, psk, prologue, ephemeral_private=None):
        self.initiator = initiator
        self.s = static_private
        self.s_pub = x25519_public(static_private)
        self.e = ephemeral_private if ephemeral_private is not None else secrets.token_bytes(32)
        self.e_pub = x25519_public(self.e)
        self.psk = psk
        self.ss = SymmetricState()
        self.ss.mix_hash(prologue)
        self.re = None
        self.rs = None

    # initiator
    def write_message1(self):
        self.ss.mix_hash(self.e_pub)
        self.ss.mix_key(self.e_pub)  # psk pattern: e also does MixKey
        return self.e_pub + self.ss.encrypt_and_hash(b"")

    def read_message2(self, message):
        if len(message) != 96:
            raise Mismatch(f"message 2 is {len(message)} bytes, not 96")
        self.re = message[:32]
        self.ss.mix_hash(self.re)
        self.ss.mix_key(self.re)
        self.ss.mix_key(x25519_dh(self.e, self.re))
        self.rs = self.ss.decrypt_and_hash(message[32:80])
        self.ss.mix_key(x25519_dh(self.e, self.rs))
        self.ss.decrypt_and_hash(message[80:96])

    def write_message3(self):
        out = self.ss.encrypt_and_hash(self.s_pub)
        self.ss.mix_key(x25519_dh(self.s, self.re))
        self.ss.mix_key_and_hash(self.psk)
        return out + self.ss.encrypt_and_hash(b"")

    # responder
    def read_message1(self, message):
        if len(message) != 48:
            raise Mismatch(f"message 1 is {len(message)} bytes, not 48")
        self.re = message[:32]
        self.ss.mix_hash(self.re)
        self.ss.mix_key(self.re)
        self.ss.decrypt_and_hash(message[32:48])

    def write_message2(self):
        out = self.e_pub
        self.ss.mix_hash(self.e_pub)
        self.ss.mix_key(self.e_pub)
        self.ss.mix_key(x25519_dh(self.e, self.re))
        out += self.ss.encrypt_and_hash(self.s_pub)
        self.ss.mix_key(x25519_dh(self.s, self.re))
        return out + self.ss.encrypt_and_hash(b"")

    def read_message3(self, message):
        if len(message) != 64:
            raise Mismatch(f"message 3 is {len(message)} bytes, not 64")
        self.rs = self.ss.decrypt_and_hash(message[:48])
        self.ss.mix_key(x25519_dh(self.e, self.rs))
        self.ss.mix_key_and_hash(self.psk)
        self.ss.decrypt_and_hash(message[48:64])

    def keys(self):
        """(sending key, receiving key) for this side: the first of Split() is client -> server."""
        c1, c2 = self.ss.split()
        return (c1, c2) if self.initiator else (c2, c1)


class RecordSealer:
    def __init__(self, key):
        self.key, self.n = key, 0

    def _advance(self):
        self.n += 1
        if self.n % 65536 == 0:
            self.key = aead_seal(self.key, b"\x00\x00\x00\x00" + struct.pack("<Q", 2**64 - 1), bytes(32))[:32]

    def seal(self, plaintext):
        out = aead_seal(self.key, noise_nonce(self.n), plaintext)
        self._advance()
        return out

    def open(self, ciphertext):
        out = aead_open(self.key, noise_nonce(self.n), ciphertext)
        self._advance()
        return out


def node_id(public_key):
    import base64
    digest = hashlib.sha256(b"GallerySync node ID" + public_key).digest()[:10]
    return base64.b32encode(digest).decode().lower().rstrip("=")
