"""The cryptographic primitives, each from its RFC, with Python integers and hashlib/hmac.

X25519 (RFC 7748), ChaCha20, Poly1305 and ChaCha20-Poly1305 (RFC 8439), HKDF (RFC 5869) and the
Noise Protocol Framework's HKDF, and the space's pre-shared key (protocol.md section 4)."""

import hashlib
import hmac
import struct

from .checking import Mismatch


# X25519 (RFC 7748, section 5), with Python integers.

P25519 = 2**255 - 19
A24 = 121665


def x25519(scalar: bytes, u: bytes) -> bytes:
    k = bytearray(scalar)
    k[0] &= 248
    k[31] &= 127
    k[31] |= 64
    k = int.from_bytes(k, "little")
    x1 = int.from_bytes(u, "little") & ((1 << 255) - 1)
    x2, z2, x3, z3 = 1, 0, x1, 1
    swap = 0
    for t in reversed(range(255)):
        kt = (k >> t) & 1
        swap ^= kt
        if swap:
            x2, x3, z2, z3 = x3, x2, z3, z2
        swap = kt
        a = (x2 + z2) % P25519
        aa = a * a % P25519
        b = (x2 - z2) % P25519
        bb = b * b % P25519
        e = (aa - bb) % P25519
        c = (x3 + z3) % P25519
        d = (x3 - z3) % P25519
        da = d * a % P25519
        cb = c * b % P25519
        x3 = (da + cb) ** 2 % P25519
        z3 = x1 * (da - cb) ** 2 % P25519
        x2 = aa * bb % P25519
        z2 = e * (aa + A24 * e) % P25519
    if swap:
        x2, x3, z2, z3 = x3, x2, z3, z2
    return (x2 * pow(z2, P25519 - 2, P25519) % P25519).to_bytes(32, "little")


def x25519_public(private: bytes) -> bytes:
    return x25519(private, (9).to_bytes(32, "little"))


def x25519_dh(private: bytes, public: bytes) -> bytes:
    shared = x25519(private, public)
    if shared == bytes(32):
        raise Mismatch("X25519 with a small-order public key (all-zero shared secret)")
    return shared


# ChaCha20 and Poly1305 (RFC 8439).

M32 = 0xFFFFFFFF


def _chacha_block(key_words, counter, nonce_words):
    s = [0x61707865, 0x3320646E, 0x79622D32, 0x6B206574] + key_words + [counter & M32] + nonce_words
    x = list(s)

    def qr(a, b, c, d):
        x[a] = (x[a] + x[b]) & M32
        v = x[d] ^ x[a]
        x[d] = ((v << 16) | (v >> 16)) & M32
        x[c] = (x[c] + x[d]) & M32
        v = x[b] ^ x[c]
        x[b] = ((v << 12) | (v >> 20)) & M32
        x[a] = (x[a] + x[b]) & M32
        v = x[d] ^ x[a]
        x[d] = ((v << 8) | (v >> 24)) & M32
        x[c] = (x[c] + x[d]) & M32
        v = x[b] ^ x[c]
        x[b] = ((v << 7) | (v >> 25)) & M32

    for _ in range(10):
        qr(0, 4, 8, 12)
        qr(1, 5, 9, 13)
        qr(2, 6, 10, 14)
        qr(3, 7, 11, 15)
        qr(0, 5, 10, 15)
        qr(1, 6, 11, 12)
        qr(2, 7, 8, 13)
        qr(3, 4, 9, 14)
    return struct.pack("<16I", *[(x[i] + s[i]) & M32 for i in range(16)])


def chacha20_block(key: bytes, counter: int, nonce: bytes) -> bytes:
    return _chacha_block(list(struct.unpack("<8I", key)), counter, list(struct.unpack("<3I", nonce)))


def chacha20_xor(key: bytes, counter: int, nonce: bytes, data: bytes) -> bytes:
    key_words = list(struct.unpack("<8I", key))
    nonce_words = list(struct.unpack("<3I", nonce))
    stream = bytearray()
    for i in range((len(data) + 63) // 64):
        stream += _chacha_block(key_words, counter + i, nonce_words)
    n = len(data)
    return (int.from_bytes(data, "little") ^ int.from_bytes(bytes(stream[:n]), "little")).to_bytes(n, "little")


def poly1305(key: bytes, message: bytes) -> bytes:
    r = int.from_bytes(key[:16], "little") & 0x0FFFFFFC0FFFFFFC0FFFFFFC0FFFFFFF
    s = int.from_bytes(key[16:32], "little")
    p = (1 << 130) - 5
    acc = 0
    for i in range(0, len(message), 16):
        block = message[i:i + 16] + b"\x01"
        acc = (acc + int.from_bytes(block, "little")) * r % p
    return ((acc + s) & ((1 << 128) - 1)).to_bytes(16, "little")


def _aead_mac_data(ad: bytes, ciphertext: bytes) -> bytes:
    def pad16(b):
        return b"\x00" * (-len(b) % 16)
    return ad + pad16(ad) + ciphertext + pad16(ciphertext) + struct.pack("<QQ", len(ad), len(ciphertext))


def aead_seal(key: bytes, nonce: bytes, plaintext: bytes, ad: bytes = b"") -> bytes:
    otk = chacha20_block(key, 0, nonce)[:32]
    ciphertext = chacha20_xor(key, 1, nonce, plaintext)
    return ciphertext + poly1305(otk, _aead_mac_data(ad, ciphertext))


class OpenFailed(Exception):
    pass


def aead_open(key: bytes, nonce: bytes, sealed: bytes, ad: bytes = b"") -> bytes:
    if len(sealed) < 16:
        raise OpenFailed("shorter than a tag")
    ciphertext, tag = sealed[:-16], sealed[-16:]
    otk = chacha20_block(key, 0, nonce)[:32]
    if not hmac.compare_digest(poly1305(otk, _aead_mac_data(ad, ciphertext)), tag):
        raise OpenFailed("tag mismatch")
    return chacha20_xor(key, 1, nonce, ciphertext)


def noise_nonce(n: int) -> bytes:
    # protocol.md section 4: 32 zero bits, then n as u64 LE.
    return b"\x00\x00\x00\x00" + struct.pack("<Q", n)


# HKDF (RFC 5869) and Noise's HKDF.

def hkdf_rfc5869(ikm: bytes, salt: bytes, info: bytes, length: int) -> bytes:
    prk = hmac.new(salt if salt else bytes(32), ikm, hashlib.sha256).digest()
    out, block, i = b"", b"", 1
    while len(out) < length:
        block = hmac.new(prk, block + info + bytes([i]), hashlib.sha256).digest()
        out += block
        i += 1
    return out[:length]


def noise_hkdf(chaining_key: bytes, ikm: bytes, outputs: int):
    temp = hmac.new(chaining_key, ikm, hashlib.sha256).digest()
    result, previous = [], b""
    for i in range(1, outputs + 1):
        previous = hmac.new(temp, previous + bytes([i]), hashlib.sha256).digest()
        result.append(previous)
    return result


def space_psk(secret: bytes) -> bytes:
    # protocol.md section 4: HKDF-SHA256(IKM secret, salt empty, info "GallerySync noise psk v3", 32).
    return hkdf_rfc5869(secret, b"", b"GallerySync noise psk v3", 32)
