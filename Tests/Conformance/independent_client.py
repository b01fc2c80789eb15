#!/usr/bin/env python3
"""An independent GallerySync protocol version 3 client, written from protocol.md alone.

Standard library only. Every primitive is implemented here from its RFC (X25519: RFC 7748,
ChaCha20-Poly1305: RFC 8439, HKDF: RFC 5869 over hashlib/hmac), the Noise XXpsk3 handshake from the
Noise Protocol Framework (revision 34), and the frames, records and op encoding from protocol.md.

  independent_client.py selftest [--protocol protocol.md]
      RFC test vectors, then every golden frame of protocol.md section 16: decoded, compared with
      the prose's meaning, re-encoded byte for byte; the golden handshake re-derived from its keys.
  independent_client.py run --host H --port P --dir DIR --gallery BIN [--protocol protocol.md]
      selftest, then against a real node (`gallery serve DIR` listening on H:P; BIN is the
      `gallery` executable, used only for `gallery -C DIR ...`): handshake, catch-up, pushed ops,
      live ops, blob fetches and the error cases. The ops are replayed on a sequential model
      (no concurrent edits), so run against a node whose history has none: a fresh node, as
      Tests/EndToEndTests/IndependentClientTests.swift starts (not one that `explore` has used).
  independent_client.py explore ...same arguments as run...
      Experiments on points protocol.md leaves open; prints what the node does (never fails on them).

Exit status 0 when every check passed; 1 with a line `FAIL: ...` on the first mismatch.
"""

import argparse
import hashlib
import hmac
import json
import os
import re
import secrets
import socket
import struct
import subprocess
import sys
import tempfile
import time


class Mismatch(Exception):
    """A check failed: the node (or the spec's own example) does not do what protocol.md says."""


def check(condition, message):
    if not condition:
        raise Mismatch(message)


def log(message):
    print(message, flush=True)


# ---------------------------------------------------------------------------------------------
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


# ---------------------------------------------------------------------------------------------
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


# ---------------------------------------------------------------------------------------------
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


# ---------------------------------------------------------------------------------------------
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


# ---------------------------------------------------------------------------------------------
# Wire encoding (protocol.md sections 1, 3, 7).

T_HELLO, T_ERROR, T_HEARTBEAT, T_NOISE, T_RECORD, T_IDENTITY = 0x01, 0x05, 0x06, 0x07, 0x08, 0x09
T_SYNC_REQUEST, T_OPS, T_CAUGHT_UP, T_IHAVE, T_GRAFT, T_PRUNE = 0x10, 0x11, 0x12, 0x13, 0x14, 0x15
T_FETCH, T_CHUNK, T_FETCH_ERROR, T_CANCEL, T_ADDRESSES = 0x20, 0x21, 0x22, 0x23, 0x40

ERROR_NAMES = {1: "protocol_error", 2: "unsupported_version", 3: "auth_failed", 4: "frame_too_large",
               5: "unknown_frame_type", 6: "timeout", 7: "slow_peer", 8: "shutting_down", 9: "rejected_op",
               10: "duplicate_connection", 11: "internal_error", 12: "not_found", 13: "cancelled",
               14: "divergent_op", 15: "corrupt_frame", 16: "identity_mismatch"}
ERROR_CODES = {name: code for code, name in ERROR_NAMES.items()}


def varint(value: int) -> bytes:
    if value < 0 or value >= 1 << 64:
        raise ValueError(f"varint out of range: {value}")
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def zigzag(value: int) -> bytes:
    return varint((value << 1) ^ (value >> 63) if value < 0 else value << 1)


def string(text) -> bytes:
    data = text.encode("utf-8") if isinstance(text, str) else bytes(text)
    return varint(len(data)) + data


class Malformed(Exception):
    pass


class Reader:
    def __init__(self, data: bytes):
        self.data, self.i = bytes(data), 0

    def take(self, n):
        if self.i + n > len(self.data):
            raise Malformed(f"cut: wanted {n} bytes at {self.i} of {len(self.data)}")
        out = self.data[self.i:self.i + n]
        self.i += n
        return out

    def u8(self):
        return self.take(1)[0]

    def u16(self):
        return struct.unpack("<H", self.take(2))[0]

    def u32(self):
        return struct.unpack("<I", self.take(4))[0]

    def u64(self):
        return struct.unpack("<Q", self.take(8))[0]

    def varint(self):
        value, shift = 0, 0
        for count in range(1, 11):
            byte = self.u8()
            value |= (byte & 0x7F) << shift
            if not byte & 0x80:
                if count > 1 and byte == 0:
                    raise Malformed("varint not in its shortest form")
                if value >= 1 << 64:
                    raise Malformed("varint beyond 64 bits")
                return value
            shift += 7
        raise Malformed("varint longer than 10 bytes")

    def zigzag(self):
        v = self.varint()
        return (v >> 1) ^ -(v & 1)

    def string(self, limit=None):
        n = self.varint()
        if limit is not None and n > limit:
            raise Malformed(f"string of {n} bytes over its bound {limit}")
        return self.take(n).decode("utf-8")

    def rest(self):
        out = self.data[self.i:]
        self.i = len(self.data)
        return out

    def end(self):
        if self.i != len(self.data):
            raise Malformed(f"{len(self.data) - self.i} bytes left over")


def frame(frame_type: int, payload: bytes, flags: int = 0) -> bytes:
    return struct.pack("<IBB", len(payload), frame_type, flags) + payload


def parse_frame(data: bytes):
    length, frame_type, flags = struct.unpack("<IBB", data[:6])
    if len(data) != 6 + length:
        raise Malformed(f"frame header says {length} payload bytes, {len(data) - 6} present")
    return frame_type, flags, data[6:]


# Version vectors: {replica: counter}.

def encode_vv(vv) -> bytes:
    out = varint(len(vv))
    for replica in sorted(vv):
        out += struct.pack("<Q", replica) + varint(vv[replica])
    return out


def read_vv(r: Reader):
    vv, previous = {}, None
    for _ in range(r.varint()):
        replica = r.u64()
        counter = r.varint()
        if previous is not None and replica <= previous:
            raise Malformed("version vector not in ascending replica order")
        if counter < 1:
            raise Malformed("version vector counter 0")
        vv[replica] = counter
        previous = replica
    return vv


def encode_replicas(replicas) -> bytes:
    return varint(len(replicas)) + b"".join(struct.pack("<Q", x) for x in replicas)


def read_replicas(r: Reader):
    return [r.u64() for _ in range(r.varint())]


def encode_address(host, port):
    return string(host) + struct.pack("<H", port)


def read_address(r):
    host = r.string(255)
    if not host:
        raise Malformed("empty host")
    return (host, r.u16())


HELLO_MAGIC = b"GSYN"


def encode_payload(frame_type, m) -> bytes:
    """The payload of one frame from its fields (a dict, as decode_payload returns)."""
    if frame_type == T_HELLO:
        return (HELLO_MAGIC + bytes([len(m["versions"])]) + b"".join(struct.pack("<H", v) for v in m["versions"])
                + struct.pack("<Q", 0) + bytes(32) + struct.pack("<I", 0) + string(""))
    if frame_type == T_ERROR:
        return struct.pack("<H", m["code"]) + string(m["message"])
    if frame_type == T_HEARTBEAT:
        return b""
    if frame_type in (T_NOISE, T_RECORD):
        return m["bytes"]
    if frame_type == T_IDENTITY:
        return struct.pack("<HQI", m["version"], m["replica"], m["max_frame"]) + string(m["name"])
    if frame_type in (T_SYNC_REQUEST, T_CAUGHT_UP, T_IHAVE):
        return encode_vv(m["vv"])
    if frame_type == T_GRAFT:
        return encode_vv(m["vv"]) + encode_replicas(m["origins"])
    if frame_type == T_PRUNE:
        return encode_replicas(m["origins"])
    if frame_type == T_OPS:
        return varint(len(m["ops"])) + b"".join(encode_op(op) for op in m["ops"])
    if frame_type == T_FETCH:
        return varint(m["request"]) + m["hash"] + varint(m["offset"]) + varint(m["length"])
    if frame_type == T_CHUNK:
        return varint(m["request"]) + varint(m["offset"]) + varint(m["total"]) + m["data"]
    if frame_type == T_FETCH_ERROR:
        return varint(m["request"]) + struct.pack("<H", m["code"]) + string(m["message"])
    if frame_type == T_CANCEL:
        return varint(m["request"])
    if frame_type == T_ADDRESSES:
        out = bytes([len(m["listen"])]) + b"".join(encode_address(h, p) for h, p in m["listen"])
        out += bytes([len(m["members"])])
        for member in m["members"]:
            out += string(member["id"]) + string(member["name"]) + varint(member["age"])
            out += bytes([len(member["addresses"])]) + b"".join(encode_address(h, p) for h, p in member["addresses"])
        return out
    raise ValueError(f"no encoder for frame type {frame_type:#x}")


def decode_payload(frame_type, payload):
    r = Reader(payload)
    if frame_type == T_HELLO:
        check(r.take(4) == HELLO_MAGIC, "hello without the GSYN magic")
        count = r.u8()
        m = {"versions": [r.u16() for _ in range(count)]}
        m["zeros"] = (r.u64(), r.take(32), r.u32(), r.string())
    elif frame_type == T_ERROR:
        m = {"code": r.u16(), "message": r.string(1024)}
    elif frame_type == T_HEARTBEAT:
        m = {}
    elif frame_type in (T_NOISE, T_RECORD):
        m = {"bytes": r.rest()}
    elif frame_type == T_IDENTITY:
        m = {"version": r.u16(), "replica": r.u64(), "max_frame": r.u32(), "name": r.string(255)}
    elif frame_type in (T_SYNC_REQUEST, T_CAUGHT_UP, T_IHAVE):
        m = {"vv": read_vv(r)}
    elif frame_type == T_GRAFT:
        m = {"vv": read_vv(r), "origins": read_replicas(r)}
    elif frame_type == T_PRUNE:
        m = {"origins": read_replicas(r)}
    elif frame_type == T_OPS:
        count = r.varint()
        ops = []
        for _ in range(count):
            start = r.i
            op = read_op(r)
            op["raw"] = r.data[start:r.i]
            ops.append(op)
        m = {"ops": ops}
    elif frame_type == T_FETCH:
        m = {"request": r.varint(), "hash": r.take(32), "offset": r.varint(), "length": r.varint()}
    elif frame_type == T_CHUNK:
        m = {"request": r.varint(), "offset": r.varint(), "total": r.varint(), "data": r.rest()}
    elif frame_type == T_FETCH_ERROR:
        m = {"request": r.varint(), "code": r.u16(), "message": r.string()}
    elif frame_type == T_CANCEL:
        m = {"request": r.varint()}
    elif frame_type == T_ADDRESSES:
        listen_count = r.u8()
        check(listen_count <= 8, "addresses: more than 8 listen addresses")
        m = {"listen": [read_address(r) for _ in range(listen_count)], "members": []}
        member_count = r.u8()
        check(member_count <= 32, "addresses: more than 32 members")
        for _ in range(member_count):
            member = {"id": r.string(255), "name": r.string(255), "age": r.varint()}
            n = r.u8()
            check(n <= 8, "addresses: a member with more than 8 addresses")
            member["addresses"] = [read_address(r) for _ in range(n)]
            m["members"].append(member)
    else:
        raise Malformed(f"unknown frame type {frame_type:#x}")
    r.end()
    return m


# Ops (section 7). An op is a dict: kind, counter, replica, gap, and the body's fields. References
# are None or (counter, replica). Values: None, str, float (tag 2), int (tag 3), ("ref", (c, r)).

K_CREATE, K_INSERT, K_MOVE, K_DELETE, K_UPDATE, K_COMMIT = 1, 2, 3, 4, 5, 6
F_TITLE, F_URL, F_ASPECT, F_HASH, F_BYTES, F_MEDIA, F_ORIGIN = 1, 2, 3, 4, 5, 6, 7
FIELD_NAMES = {1: "title", 2: "url", 3: "aspectRatio", 4: "contentHash", 5: "byteSize", 6: "mediaType", 7: "origin"}


def encode_ref(ref, op_counter, op_replica) -> bytes:
    if ref is None:
        return b"\x00"
    counter, replica = ref
    if replica == op_replica and counter < op_counter:
        return b"\x01" + varint(op_counter - counter)
    return b"\x02" + varint(counter) + struct.pack("<Q", replica)


def read_ref(r, op_counter, op_replica):
    tag = r.u8()
    if tag == 0:
        return None
    if tag == 1:
        delta = r.varint()
        if delta < 1 or delta >= op_counter:
            raise Malformed(f"ref delta {delta} from counter {op_counter}")
        return (op_counter - delta, op_replica)
    if tag == 2:
        counter = r.varint()
        return (counter, r.u64())
    raise Malformed(f"unknown ref tag {tag}")


def encode_value(value, op_counter, op_replica) -> bytes:
    if value is None:
        return b"\x00"
    if isinstance(value, str):
        return b"\x01" + string(value)
    if isinstance(value, float):
        return b"\x02" + struct.pack("<d", value)
    if isinstance(value, int):
        return b"\x03" + zigzag(value)
    if isinstance(value, tuple) and value[0] == "ref":
        return b"\x04" + encode_ref(value[1], op_counter, op_replica)
    raise ValueError(f"cannot encode value {value!r}")


def read_value(r, op_counter, op_replica):
    tag = r.u8()
    if tag == 0:
        return None
    if tag == 1:
        return r.string()
    if tag == 2:
        return struct.unpack("<d", r.take(8))[0]
    if tag == 3:
        return r.zigzag()
    if tag == 4:
        return ("ref", read_ref(r, op_counter, op_replica))
    raise Malformed(f"unknown value tag {tag}")


def encode_op(op) -> bytes:
    c, rep = op["counter"], op["replica"]
    out = bytes([op["kind"]]) + varint(c) + struct.pack("<Q", rep) + varint(op["gap"])
    kind = op["kind"]
    if kind == K_CREATE:
        out += string(op["name"])
    elif kind == K_INSERT:
        out += string(op["gallery"]) + encode_ref(op["after"], c, rep) + encode_ref(op["before"], c, rep)
        out += varint(len(op["drafts"]))
        for draft in op["drafts"]:
            out += bytes([1 if draft.get("placeholder") else 0]) + varint(len(draft["fields"]))
            for field, value in draft["fields"]:
                out += bytes([field]) + encode_value(value, c, rep)
    elif kind == K_MOVE:
        out += encode_ref(op["item"], c, rep) + string(op["gallery"])
        out += encode_ref(op["after"], c, rep) + encode_ref(op["before"], c, rep)
    elif kind in (K_DELETE, K_COMMIT):
        out += encode_ref(op["item"], c, rep)
    elif kind == K_UPDATE:
        out += encode_ref(op["item"], c, rep) + bytes([op["field"]]) + encode_value(op["value"], c, rep)
    else:
        raise ValueError(f"unknown op kind {kind}")
    return out


def read_op(r):
    kind = r.u8()
    c = r.varint()
    rep = r.u64()
    gap = r.varint()
    if gap < 1 or gap > c:
        raise Malformed(f"op {c}@{rep:016x}: gap {gap}")
    op = {"kind": kind, "counter": c, "replica": rep, "gap": gap}
    if kind == K_CREATE:
        op["name"] = r.string()
    elif kind == K_INSERT:
        op["gallery"] = r.string()
        op["after"] = read_ref(r, c, rep)
        op["before"] = read_ref(r, c, rep)
        drafts = []
        for _ in range(r.varint()):
            flags = r.u8()
            if flags & ~1:
                raise Malformed("draft flags with reserved bits")
            fields = []
            for _ in range(r.varint()):
                field = r.u8()
                fields.append((field, read_value(r, c, rep)))
            drafts.append({"placeholder": bool(flags & 1), "fields": fields})
        op["drafts"] = drafts
    elif kind == K_MOVE:
        op["item"] = read_ref(r, c, rep)
        op["gallery"] = r.string()
        op["after"] = read_ref(r, c, rep)
        op["before"] = read_ref(r, c, rep)
    elif kind in (K_DELETE, K_COMMIT):
        op["item"] = read_ref(r, c, rep)
    elif kind == K_UPDATE:
        op["item"] = read_ref(r, c, rep)
        op["field"] = r.u8()
        op["value"] = read_value(r, c, rep)
    else:
        raise Malformed(f"unknown op kind {kind}")
    return op


def op_id_text(counter, replica):
    """The text form this client expects: COUNTER@REPLICA, the replica as 16 lowercase hex digits."""
    return f"{counter}@{replica:016x}"


def parse_op_id(text):
    counter, replica = text.split("@")
    return int(counter), int(replica, 16)


def op_size(op):
    """How many counters an op uses: an insert of n items uses n (section 2)."""
    return len(op["drafts"]) if op["kind"] == K_INSERT else 1


# ---------------------------------------------------------------------------------------------
# Self test: RFC vectors, then protocol.md section 16.

def rfc_vectors():
    h = bytes.fromhex
    # RFC 7748 section 5.2 and 6.1.
    check(x25519(h("a546e36bf0527c9d3b16154b82465edd62144c0ac1fc5a18506a2244ba449ac4"),
                 h("e6db6867583030db3594c1a424b15f7c726624ec26b3353b10a903a6d0ab1c4c"))
          == h("c3da55379de9c6908e94ea4df28d084f32eccf03491c71f754b4075577a28552"), "RFC 7748 5.2 vector 1")
    alice = h("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a")
    bob = h("5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb")
    check(x25519_public(alice) == h("8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a"), "RFC 7748 6.1 alice")
    check(x25519_public(bob) == h("de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f"), "RFC 7748 6.1 bob")
    shared = h("4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742")
    check(x25519(alice, x25519_public(bob)) == shared and x25519(bob, x25519_public(alice)) == shared, "RFC 7748 6.1 shared")
    # RFC 7748 5.2: one iteration of the repeated ladder.
    k = u = (9).to_bytes(32, "little")
    for i in range(1000):
        k, u = x25519(k, u), k
        if i == 0:
            check(k == h("422c8e7a6227d7bca1350b3e2bb7279f7897b87bb6854b783c60e80311ae3079"), "RFC 7748 5.2 iterated x1")
    check(k == h("684cf59ba83309552800ef566f2f4d3c1c3887c49360e3875f2eb94d99532c51"), "RFC 7748 5.2 iterated x1000")
    # RFC 8439 2.3.2: the block function.
    key = bytes(range(32))
    block = chacha20_block(key, 1, h("000000090000004a00000000"))
    check(block == h("10f1e7e4d13b5915500fdd1fa32071c4c7d1f4c733c068030422aa9ac3d46c4e"
                     "d2826446079faa0914c2d705d98b02a2b5129cd1de164eb9cbd083e8a2503c4e"), "RFC 8439 2.3.2 block")
    # RFC 8439 2.4.2: encryption.
    sunscreen = (b"Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, "
                 b"sunscreen would be it.")
    ct = chacha20_xor(key, 1, h("000000000000004a00000000"), sunscreen)
    check(ct[:16] == h("6e2e359a2568f98041ba0728dd0d6981") and ct[-2:] == h("874d"), "RFC 8439 2.4.2 encryption")
    # RFC 8439 2.5.2: Poly1305.
    check(poly1305(h("85d6be7857556d337f4452fe42d506a80103808afb0db2fd4abff6af4149f51b"),
                   b"Cryptographic Forum Research Group") == h("a8061dc1305136c6c22b8baf0c0127a9"), "RFC 8439 2.5.2 Poly1305")
    # RFC 8439 2.8.2: AEAD.
    aead_key = bytes(range(0x80, 0xA0))
    nonce = h("070000004041424344454647")
    ad = h("50515253c0c1c2c3c4c5c6c7")
    sealed = aead_seal(aead_key, nonce, sunscreen, ad)
    check(sealed[:16] == h("d31a8d34648e60db7b86afbc53ef7ec2") and sealed[-16:] == h("1ae10b594f09e26a7e902ecbd0600691"),
          "RFC 8439 2.8.2 AEAD")
    check(aead_open(aead_key, nonce, sealed, ad) == sunscreen, "RFC 8439 2.8.2 AEAD open")
    tampered = bytearray(sealed)
    tampered[5] ^= 1
    try:
        aead_open(aead_key, nonce, bytes(tampered), ad)
        raise Mismatch("a tampered AEAD ciphertext opened")
    except OpenFailed:
        pass
    # RFC 5869 A.1 and A.3.
    check(hkdf_rfc5869(b"\x0b" * 22, h("000102030405060708090a0b0c"), h("f0f1f2f3f4f5f6f7f8f9"), 42)
          == h("3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865"), "RFC 5869 A.1")
    check(hkdf_rfc5869(b"\x0b" * 22, b"", b"", 42)
          == h("8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8"), "RFC 5869 A.3")
    # RFC 4231 test case 2 (HMAC-SHA256, from hmac and hashlib).
    check(hmac.new(b"Jefe", b"what do ya want for nothing?", hashlib.sha256).digest()
          == h("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"), "RFC 4231 case 2")
    # Varints: shortest form only.
    for value, encoded in [(0, "00"), (127, "7f"), (128, "8001"), (300, "ac02"), (262144, "808010"), (2**64 - 1, "ffffffffffffffffff01")]:
        check(varint(value) == h(encoded) and Reader(h(encoded)).varint() == value, f"varint {value}")
    for bad in ["8000", "ffffffffffffffffff02", "8080808080808080808001"]:
        try:
            Reader(h(bad)).varint()
            raise Mismatch(f"varint {bad} accepted")
        except Malformed:
            pass
    for value, encoded in [(0, 0), (-1, 1), (1, 2), (-2, 3)]:
        check(zigzag(value) == varint(encoded) and Reader(zigzag(value)).zigzag() == value, f"zigzag {value}")


def golden_frames(protocol_path):
    text = open(protocol_path, encoding="utf-8").read()
    blocks = re.findall(r"<!-- golden: (\w+) -->\s*```\s*\n(.*?)```", text, re.S)
    return {name: bytes.fromhex(" ".join(body.split())) for name, body in blocks}


ALICE, BOB = 0x0102030405060708, 0x1112131415161718


def node_id(public_key):
    import base64
    digest = hashlib.sha256(b"GallerySync node ID" + public_key).digest()[:10]
    return base64.b32encode(digest).decode().lower().rstrip("=")


def hello_frame():
    return frame(T_HELLO, encode_payload(T_HELLO, {"versions": [3]}))


def prologue_for(hello):
    return b"GallerySync" + struct.pack("<H", 3) + hello


def golden_selftest(protocol_path):
    golden = golden_frames(protocol_path)
    expected_names = {"hello", "noise1", "noise2", "noise3", "recordAlice", "recordBob", "identity", "syncRequest",
                      "ops", "caughtUp", "ihave", "graft", "prune", "heartbeat", "error", "fetch", "chunk",
                      "fetchError", "cancel", "addresses"}
    check(expected_names <= set(golden), f"protocol.md lacks golden frames {sorted(expected_names - set(golden))}")

    def key(label):
        return hashlib.sha256(label.encode()).digest()

    a_s, a_e = key("GallerySync golden initiator static"), key("GallerySync golden initiator ephemeral")
    b_s, b_e = key("GallerySync golden responder static"), key("GallerySync golden responder ephemeral")
    check(x25519_public(a_s).hex() == "8d188e2ab3b902aab4d212cc0df93af9ac12e5e74237994623c908c1b831784f", "alice static public")
    check(x25519_public(a_e).hex() == "936b3fa880395d40e81aa0dc24225bfb65908c98802d63ecf36c8aa4308bc735", "alice ephemeral public")
    check(x25519_public(b_s).hex() == "a8f7bbf0be1c430f38d6851238c765840e81282c8fc1551657131c5da56e0c03", "bob static public")
    check(x25519_public(b_e).hex() == "ebc47784a7a6481ae41bfa1e7e865fd07062eca0fa9bb3fe0172c0e0ebf44455", "bob ephemeral public")
    check(node_id(x25519_public(a_s)) == "x36zqpdofdwg4t2w", f"alice's node ID {node_id(x25519_public(a_s))}")
    check(node_id(x25519_public(b_s)) == "meki6r2ngbfah7yq", f"bob's node ID {node_id(x25519_public(b_s))}")

    psk = space_psk(b"example secret")
    hello = hello_frame()
    check(hello == golden["hello"], "golden hello: my encoding differs")
    check(len(hello) == 58, "hello is not 58 bytes")
    t, f, p = parse_frame(golden["hello"])
    check(t == T_HELLO and f == 0 and decode_payload(t, p)["versions"] == [3], "golden hello decodes")
    prologue = prologue_for(hello)
    alice = Handshake(True, a_s, psk, prologue, a_e)
    bob = Handshake(False, b_s, psk, prologue, b_e)
    m1 = frame(T_NOISE, alice.write_message1())
    check(m1 == golden["noise1"], "golden noise1 (-> e) differs")
    bob.read_message1(parse_frame(golden["noise1"])[2])
    m2 = frame(T_NOISE, bob.write_message2())
    check(m2 == golden["noise2"], "golden noise2 (<- e, ee, s, es) differs")
    alice.read_message2(parse_frame(golden["noise2"])[2])
    check(alice.rs == x25519_public(b_s), "message 2 carries bob's static key")
    m3 = frame(T_NOISE, alice.write_message3())
    check(m3 == golden["noise3"], "golden noise3 (-> s, se, psk) differs")
    bob.read_message3(parse_frame(golden["noise3"])[2])
    check(bob.rs == x25519_public(a_s), "message 3 carries alice's static key")
    check(alice.ss.h.hex() == "6e2e8634d26cd4921b7e41f2220dd8cf2df0979468318418b83dc3d2c8942b19", "golden handshake hash")
    check(bob.ss.h == alice.ss.h, "both sides' handshake hashes")
    alice_send, alice_recv = alice.keys()
    bob_send, bob_recv = bob.keys()
    check(alice_send == bob_recv and bob_send == alice_recv, "split keys pair up")
    alice_identity = frame(T_IDENTITY, encode_payload(T_IDENTITY, {"version": 3, "replica": ALICE, "max_frame": 4194304, "name": "alice"}))
    bob_identity = frame(T_IDENTITY, encode_payload(T_IDENTITY, {"version": 3, "replica": BOB, "max_frame": 4194304, "name": "bob"}))
    check(frame(T_RECORD, RecordSealer(alice_send).seal(alice_identity)) == golden["recordAlice"], "golden recordAlice differs")
    check(frame(T_RECORD, RecordSealer(bob_send).seal(bob_identity)) == golden["recordBob"], "golden recordBob differs")
    check(RecordSealer(bob_recv).open(parse_frame(golden["recordAlice"])[2]) == alice_identity, "recordAlice opens to alice's identity")
    check(RecordSealer(alice_recv).open(parse_frame(golden["recordBob"])[2]) == bob_identity, "recordBob opens to bob's identity")
    # A wrong secret fails message 3 at the responder.
    wrong_bob = Handshake(False, b_s, space_psk(b"another secret"), prologue, b_e)
    wrong_bob.read_message1(parse_frame(golden["noise1"])[2])
    check(frame(T_NOISE, wrong_bob.write_message2()) == golden["noise2"], "message 2 does not depend on the secret")
    try:
        wrong_bob.read_message3(parse_frame(golden["noise3"])[2])
        raise Mismatch("message 3 opened under another secret")
    except OpenFailed:
        pass

    ops = [
        {"kind": K_CREATE, "counter": 1, "replica": ALICE, "gap": 1, "name": "alice"},
        {"kind": K_INSERT, "counter": 2, "replica": ALICE, "gap": 1, "gallery": "alice", "after": None, "before": None,
         "drafts": [{"placeholder": False, "fields": [(F_TITLE, "venice.png"), (F_ASPECT, 1.5)]}]},
        {"kind": K_MOVE, "counter": 3, "replica": ALICE, "gap": 1, "item": (2, ALICE), "gallery": "alice",
         "after": None, "before": None},
    ]
    semantic = {
        "identity": (T_IDENTITY, 0, {"version": 3, "replica": ALICE, "max_frame": 4194304, "name": "alice"}),
        "syncRequest": (T_SYNC_REQUEST, 0, {"vv": {ALICE: 3, BOB: 300}}),
        "ops": (T_OPS, 0, {"ops": ops}),
        "caughtUp": (T_CAUGHT_UP, 0, {"vv": {ALICE: 3}}),
        "ihave": (T_IHAVE, 1, {"vv": {ALICE: 3}}),
        "graft": (T_GRAFT, 1, {"vv": {ALICE: 3, BOB: 300}, "origins": [BOB]}),
        "prune": (T_PRUNE, 1, {"origins": [BOB]}),
        "heartbeat": (T_HEARTBEAT, 0, {}),
        "error": (T_ERROR, 0, {"code": 3, "message": "wrong secret"}),
        "fetch": (T_FETCH, 0, {"request": 7, "hash": hashlib.sha256(b"abc").digest(), "offset": 0, "length": 262144}),
        "chunk": (T_CHUNK, 0, {"request": 7, "offset": 0, "total": 3, "data": b"abc"}),
        "fetchError": (T_FETCH_ERROR, 0, {"request": 7, "code": 12, "message": "no such blob here"}),
        "cancel": (T_CANCEL, 0, {"request": 7}),
        "addresses": (T_ADDRESSES, 1, {"listen": [("127.0.0.1", 7001)], "members": [
            {"id": "carol", "name": "carol", "age": 42, "addresses": [("10.0.0.3", 7003)]}]}),
    }
    for name, (frame_type, flags, meaning) in semantic.items():
        t, f, payload = parse_frame(golden[name])
        check((t, f) == (frame_type, flags), f"golden {name}: type/flags {t:#x}/{f:#x}, expected {frame_type:#x}/{flags:#x}")
        decoded = decode_payload(t, payload)
        if t == T_OPS:
            for op in decoded["ops"]:
                op.pop("raw")
        check(decoded == meaning, f"golden {name} decodes to {decoded}, expected {meaning}")
        check(frame(frame_type, encode_payload(frame_type, meaning), flags) == golden[name], f"golden {name}: re-encoding differs")
    return len(golden)


def selftest(protocol_path):
    started = time.time()
    rfc_vectors()
    count = golden_selftest(protocol_path)
    log(f"selftest: RFC 7748/8439/5869/4231 vectors and {count} golden frames of protocol.md section 16 pass "
        f"({time.time() - started:.2f} s)")



# ---------------------------------------------------------------------------------------------
# A connection to a node (sections 3, 4, 4.2, 10).

class NodeClosed(Exception):
    pass


class NodeError(Exception):
    """The node sent `error` (sealed or clear)."""

    def __init__(self, code, message, sealed):
        super().__init__(f"error {ERROR_NAMES.get(code, code)} ({code}) {'sealed' if sealed else 'in the clear'}: {message}")
        self.code, self.message, self.sealed = code, message, sealed


class Connection:
    def __init__(self, host, port, secret, static=None, name="independent", replica=None, max_frame=65536, psk=None):
        self.host, self.port = host, port
        self.psk = psk if psk is not None else space_psk(secret)
        self.static = static or secrets.token_bytes(32)
        self.name = name
        self.replica = replica if replica is not None else secrets.randbits(64)
        self.max_frame = max_frame
        self.sock = None
        self.inbuf = bytearray()
        self.plain = bytearray()
        self.queue = []
        self.sealed_in = False
        self.last_send = time.time()
        self.peer_identity = None
        self.records_sent = 0

    # Raw I/O.
    def _send(self, data):
        try:
            self.sock.sendall(data)
        except (BrokenPipeError, ConnectionResetError) as failure:
            raise NodeClosed(f"the node closed the connection while this client was writing: {failure}")
        self.last_send = time.time()

    def _clear_frame(self, deadline, limit):
        while True:
            if len(self.inbuf) >= 6:
                length, frame_type, flags = struct.unpack("<IBB", self.inbuf[:6])
                if length > limit:
                    raise Mismatch(f"the node sent a clear frame of type {frame_type:#x} announcing {length} bytes (limit {limit})")
                if len(self.inbuf) >= 6 + length:
                    payload = bytes(self.inbuf[6:6 + length])
                    del self.inbuf[:6 + length]
                    return frame_type, flags, payload
            now = time.time()
            if now >= deadline:
                raise TimeoutError("no frame from the node in time")
            if self.sealed_in or self.peer_identity is not None:
                if now - self.last_send >= 1.0:
                    self.send_frame(T_HEARTBEAT, b"")
            self.sock.settimeout(max(0.01, min(0.25, deadline - now)))
            try:
                data = self.sock.recv(262144)
            except socket.timeout:
                continue
            except ConnectionResetError:
                raise NodeClosed("connection reset")
            if not data:
                raise NodeClosed("connection closed by the node")
            self.inbuf += data

    # Handshake (section 4).
    def connect(self, timeout=5.0):
        self.sock = socket.create_connection((self.host, self.port), timeout=timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return self

    def handshake(self, timeout=5.0, then=()):
        """The handshake; `then`: (type, message) frames sealed and written together with message 3."""
        if self.sock is None:
            self.connect()
        deadline = time.time() + timeout
        hello = hello_frame()
        self.hs = Handshake(True, self.static, self.psk, prologue_for(hello))
        self._send(hello + frame(T_NOISE, self.hs.write_message1()))
        frame_type, _, payload = self._clear_frame(deadline, 4096)
        if frame_type == T_ERROR:
            m = decode_payload(T_ERROR, payload)
            raise NodeError(m["code"], m["message"], False)
        check(frame_type == T_NOISE, f"the server answered message 1 with frame type {frame_type:#x}")
        self.hs.read_message2(payload)
        self.server_static = self.hs.rs
        message3 = self.hs.write_message3()
        send_key, receive_key = self.hs.keys()
        self.sealer, self.opener = RecordSealer(send_key), RecordSealer(receive_key)
        self.sealed_in = True
        out = frame(T_NOISE, message3)
        for frame_type, message in [(T_IDENTITY, {"version": 3, "replica": self.replica, "max_frame": self.max_frame,
                                                  "name": self.name})] + list(then):
            out += self.seal_frames(frame(frame_type, encode_payload(frame_type, message)))
        self._send(out)
        return self

    def await_identity(self, timeout=5.0):
        frame_type, flags, m = self.recv(timeout)
        check(frame_type == T_IDENTITY, f"the node's first sealed frame is {frame_type:#x}, not identity")
        self.peer_identity = m
        return m

    # Records (section 4.2).
    def seal_frames(self, data, corrupt=False):
        out = b""
        for i in range(0, len(data), 65519):
            sealed = self.sealer.seal(data[i:i + 65519])
            if corrupt:
                sealed = bytearray(sealed)
                sealed[len(sealed) // 2] ^= 0x04
                sealed = bytes(sealed)
            out += frame(T_RECORD, sealed)
            self.records_sent += 1
        return out

    def send_raw_frames(self, data, corrupt=False):
        self._send(self.seal_frames(data, corrupt))

    def send_frame(self, frame_type, payload, flags=0):
        self.send_raw_frames(frame(frame_type, payload, flags))

    def send(self, frame_type, message, flags=0):
        self.send_frame(frame_type, encode_payload(frame_type, message), flags)

    def recv_raw(self, timeout):
        """The next frame inside the records: (type, flags, payload). A clear `error` is raised."""
        deadline = time.time() + timeout
        while True:
            if len(self.plain) >= 6:
                length, frame_type, flags = struct.unpack("<IBB", self.plain[:6])
                if length > self.max_frame:
                    raise Mismatch(f"the node sent a frame of {length} payload bytes, over my max_frame {self.max_frame}")
                if len(self.plain) >= 6 + length:
                    payload = bytes(self.plain[6:6 + length])
                    del self.plain[:6 + length]
                    return frame_type, flags, payload
            frame_type, flags, payload = self._clear_frame(deadline, 65535)
            if frame_type == T_RECORD:
                check(flags == 0, f"record frame with flags {flags:#x}")
                check(16 <= len(payload) <= 65535, f"record of {len(payload)} bytes")
                try:
                    self.plain += self.opener.open(payload)
                except OpenFailed as failure:
                    raise Mismatch(f"a record from the node does not open: {failure}")
            elif frame_type == T_ERROR and self.peer_identity is None:
                m = decode_payload(T_ERROR, payload)
                raise NodeError(m["code"], m["message"], False)
            else:
                raise Mismatch(f"an unsealed frame of type {frame_type:#x} after the handshake")

    def recv(self, timeout):
        frame_type, flags, payload = self.recv_raw(timeout)
        check(flags & ~1 == 0, f"the node sent frame {frame_type:#x} with reserved flag bits {flags:#x}")
        try:
            m = decode_payload(frame_type, payload)
        except Malformed as failure:
            raise Mismatch(f"frame {frame_type:#x} from the node does not decode: {failure}: {payload.hex()}")
        if frame_type == T_ERROR:
            raise NodeError(m["code"], m["message"], True)
        return frame_type, flags, m

    def expect_close(self, timeout=5.0):
        """Reads until the node closes; returns the error it sent first, if any."""
        error = None
        deadline = time.time() + timeout
        while True:
            try:
                self.recv(max(0.01, deadline - time.time()))
            except NodeError as e:
                error = error or e
            except NodeClosed:
                return error
            except TimeoutError:
                raise Mismatch(f"the node kept the connection open {timeout} s (error so far: {error})")

    def close(self):
        if self.sock:
            self.sock.close()
            self.sock = None


# ---------------------------------------------------------------------------------------------
# A sequential replica model: enough to follow a history without concurrent edits (every op made
# after its author had seen all earlier ones), which is what a single node's log and this client's
# pushes are. It checks that each insert's and move's anchors are adjacent slots.

class Model:
    def __init__(self):
        self.galleries = {}      # name -> list of slot IDs, tombstones included
        self.slot_item = {}
        self.item_slot = {}      # item -> (slot, op ID that set it)
        self.items = {}          # item -> {"fields": {}, "placeholder": bool, "deleted": bool}
        self.vv = {}
        self.applied = []

    def max_counter(self):
        return max(self.vv.values(), default=0)

    def _place(self, gallery, after, before, slots, context):
        check(gallery in self.galleries, f"{context}: gallery {gallery!r} not created")
        order = self.galleries[gallery]
        if after is None:
            index = 0
        else:
            check(after in order, f"{context}: anchor after={after} is not a slot of {gallery!r}")
            index = order.index(after) + 1
        following = order[index] if index < len(order) else None
        check(following == before, f"{context}: anchors after={after} before={before} are not adjacent in {gallery!r} "
              f"(the slot after {after} is {following})")
        order[index:index] = slots

    def apply(self, op):
        op_id = (op["counter"], op["replica"])
        context = f"op {op_id_text(*op_id)} kind {op['kind']}"
        previous = op["counter"] - op["gap"]
        # The node's reading of "previous op = counter - gap" (found by experiment, protocol.md is
        # ambiguous): the last counter the replica used, i.e. the last item of a previous insert run.
        held = self.vv.get(op["replica"], 0)
        check(previous == held, f"{context}: gap {op['gap']} names counter {previous}, the replica's last counter here is {held}")
        kind = op["kind"]
        if kind == K_CREATE:
            self.galleries.setdefault(op["name"], [])
        elif kind == K_INSERT:
            ids = [(op["counter"] + k, op["replica"]) for k in range(len(op["drafts"]))]
            self._place(op["gallery"], op["after"], op["before"], ids, context)
            for item, draft in zip(ids, op["drafts"]):
                self.slot_item[item] = item
                self.item_slot[item] = (item, item)
                self.items[item] = {"fields": dict(draft["fields"]), "placeholder": draft["placeholder"], "deleted": False}
        elif kind == K_MOVE:
            check(op["item"] in self.items, f"{context}: moves unknown item {op['item']}")
            self._place(op["gallery"], op["after"], op["before"], [op_id], context)
            self.slot_item[op_id] = op["item"]
            if op_id > self.item_slot[op["item"]][1]:
                self.item_slot[op["item"]] = (op_id, op_id)
        elif kind == K_DELETE:
            check(op["item"] in self.items, f"{context}: deletes unknown item {op['item']}")
            self.items[op["item"]]["deleted"] = True
        elif kind == K_UPDATE:
            check(op["item"] in self.items, f"{context}: updates unknown item {op['item']}")
            fields = self.items[op["item"]]["fields"]
            if op["value"] is None:
                fields.pop(op["field"], None)
            else:
                fields[op["field"]] = op["value"]
        elif kind == K_COMMIT:
            check(op["item"] in self.items, f"{context}: commits unknown item {op['item']}")
            self.items[op["item"]]["placeholder"] = False
        self.vv[op["replica"]] = max(self.vv.get(op["replica"], 0), op["counter"] + op_size(op) - 1)
        self.applied.append(op)

    def slot_gallery(self, slot):
        for name, order in self.galleries.items():
            if slot in order:
                return name
        return None

    def visible(self, gallery):
        out = []
        for slot in self.galleries[gallery]:
            item = self.slot_item[slot]
            if self.item_slot[item][0] == slot and not self.items[item]["deleted"]:
                out.append(item)
        return out

    def last_slot(self, gallery):
        order = self.galleries[gallery]
        return order[-1] if order else None

    def listing(self):
        """What `list --json` should show: {gallery: [(id, title, state, url, aspect, hash, bytes, mediaType)]}."""
        out = {}
        for name in self.galleries:
            rows = []
            for item in self.visible(name):
                f = self.items[item]["fields"]
                rows.append((op_id_text(*item), f.get(F_TITLE), "placeholder" if self.items[item]["placeholder"] else "ready",
                             f.get(F_URL), f.get(F_ASPECT), f.get(F_HASH), f.get(F_BYTES), f.get(F_MEDIA)))
            out[name] = rows
        return out


def node_listing(cli):
    listing = cli.json("list", "--json")
    out = {}
    for gallery in listing["galleries"]:
        out[gallery["gallery"]] = [(i["id"], i["title"], i["state"], i["url"], i["aspectRatio"], i["hash"], i["bytes"], i["mediaType"])
                                   for i in gallery["items"]]
    return out


def compare_listings(model, cli, context):
    expected, actual = model.listing(), node_listing(cli)
    check(set(expected) == set(actual), f"{context}: galleries {sorted(actual)}, expected {sorted(expected)}")
    for name in expected:
        check(expected[name] == actual[name], f"{context}: gallery {name!r} on the node is\n  {actual[name]}\nexpected\n  {expected[name]}")


class Cli:
    def __init__(self, binary, directory):
        self.binary, self.directory = binary, directory

    def __call__(self, *arguments, ok=True):
        result = subprocess.run([self.binary, "-C", self.directory, *arguments], capture_output=True, text=True, timeout=30)
        if ok:
            check(result.returncode == 0, f"gallery {' '.join(arguments)} exited {result.returncode}: {result.stderr.strip()}")
        return result

    def lines(self, *arguments):
        return self(*arguments).stdout.split()

    def json(self, *arguments):
        return json.loads(self(*arguments).stdout)


def poll(condition, timeout, what):
    deadline = time.time() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.time() >= deadline:
            raise Mismatch(f"timed out after {timeout} s waiting for {what}")
        time.sleep(0.05)


def vv_from_status(status):
    return {int(replica, 16): counter for replica, counter in status["version"].items()}


def make_png(directory, size, seed):
    import random
    rng = random.Random(seed)
    png = bytes([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13]) + b"IHDR"
    png += bytes([0, 0, 2, 0x80, 0, 0, 1, 0xE0, 8, 2, 0, 0, 0, 0, 0, 0, 0])
    png += bytes(rng.getrandbits(8) for _ in range(size - len(png)))
    path = os.path.join(directory, f"image-{seed}.png")
    with open(path, "wb") as f:
        f.write(png)
    return path, png



class Session:
    """A live, authenticated connection: answers the node's sync_request, collects ops into the model."""

    def __init__(self, conn, model):
        self.conn, self.model = conn, model
        self.caught_up = None
        self.received = []
        self.fetch_answers = []
        self.seen_types = set()
        self.node_sync_requests = 0

    @staticmethod
    def open(args, secret, model, replica, max_frame=65536, static=None, name=None):
        static = static or args.static
        name = name or args.name
        conn = Connection(args.host, args.port, secret, static=static, name=name, replica=replica, max_frame=max_frame).handshake()
        conn.await_identity()
        return Session(conn, model)

    def handle(self, frame_type, flags, m):
        self.seen_types.add(frame_type)
        if frame_type == T_SYNC_REQUEST:
            self.node_sync_requests += 1
            missing = [op for op in self.model.applied if op["counter"] + op_size(op) - 1 > m["vv"].get(op["replica"], 0)]
            for i in range(0, len(missing), 100):
                self.conn.send(T_OPS, {"ops": missing[i:i + 100]})
            self.conn.send(T_CAUGHT_UP, {"vv": self.model.vv})
        elif frame_type == T_OPS:
            for op in m["ops"]:
                raw = op.pop("raw")
                check(encode_op(op) == raw, f"op {op_id_text(op['counter'], op['replica'])} from the node re-encodes differently:\n"
                      f"  received {raw.hex()}\n  mine     {encode_op(op).hex()}")
                op_id = (op["counter"], op["replica"])
                known = [o for o in self.model.applied if (o["counter"], o["replica"]) == op_id]
                if known:
                    check(encode_op(known[0]) == raw, f"op {op_id_text(*op_id)} came back with other bytes")
                else:
                    self.model.apply(op)
                self.received.append(op)
        elif frame_type == T_CAUGHT_UP:
            self.caught_up = m["vv"]
        elif frame_type == T_IDENTITY:
            raise Mismatch("a second identity from the node")
        elif frame_type in (T_CHUNK, T_FETCH_ERROR):
            self.fetch_answers.append((frame_type, m))
        elif frame_type == T_FETCH:
            self.conn.send(T_FETCH_ERROR, {"request": m["request"], "code": 12, "message": "this client holds no blobs"})

    def pump(self, timeout):
        frame_type, flags, m = self.conn.recv(timeout)
        self.handle(frame_type, flags, m)
        return frame_type

    def until(self, predicate, timeout, what):
        deadline = time.time() + timeout
        while not predicate():
            remaining = deadline - time.time()
            if remaining <= 0:
                raise Mismatch(f"timed out after {timeout} s waiting for {what}")
            try:
                self.pump(remaining)
            except TimeoutError:
                pass
        return predicate()

    def sync(self, timeout=10.0):
        """sync_request with the model's vector, then the node's answer up to caught_up."""
        self.caught_up = None
        self.conn.send(T_SYNC_REQUEST, {"vv": self.model.vv})
        self.until(lambda: self.caught_up is not None, timeout, "caught_up")
        return self.caught_up

    def push(self, ops, batch=True):
        for op in ops:
            self.model.apply(op)
        if batch:
            self.conn.send(T_OPS, {"ops": ops})
        else:
            for op in ops:
                self.conn.send(T_OPS, {"ops": [op]})


class Author:
    """Makes ops of one replica: each counter one above every counter this replica has seen (Lamport)."""

    def __init__(self, model, replica):
        self.model, self.replica = model, replica

    def op(self, kind, **body):
        counter = self.model.max_counter() + 1
        gap = counter - self.model.vv.get(self.replica, 0)
        op = {"kind": kind, "counter": counter, "replica": self.replica, "gap": gap}
        op.update(body)
        return op

    def draft(self, title, placeholder=False, **extra):
        fields = [(F_TITLE, title)]
        order = {"url": F_URL, "aspect": F_ASPECT, "hash": F_HASH, "size": F_BYTES, "media": F_MEDIA, "origin": F_ORIGIN}
        for key, field in order.items():
            if key in extra:
                fields.append((field, extra[key]))
        return {"placeholder": placeholder, "fields": fields}



# ---------------------------------------------------------------------------------------------
# Against a real node.

def setup_node(cli, tag):
    """Gives the node a history of its own through the command line; returns (png path, bytes, gallery)."""
    scratch = tempfile.mkdtemp(prefix="independent-client-")
    path, png = make_png(scratch, 200_000, seed=int(tag, 16) & 0xFFFF)
    gallery = f"cli-{tag}"
    cli("new-gallery", gallery)
    ids = cli.lines("add", "https://example.org/one.png", "https://example.org/two.jpg", "https://example.org/three.gif",
                    "--to", gallery, "--aspect", "1.5")
    check(len(ids) == 3, f"add printed {ids}")
    for text in ids:
        check(re.fullmatch(r"[1-9][0-9]*@[0-9a-f]{16}", text), f"an op ID printed as {text!r}, not COUNTER@16 hex digits")
    cli("add", path, "--to", gallery, "--at", "1")
    cli("move", ids[0], "--at", "3")
    cli("update", ids[1], "--title", "renamed by the command line")
    cli("delete", ids[2])
    return path, png, gallery


def run(args):
    check(args.port and args.dir and args.gallery, "run needs --port, --dir and --gallery")
    started = time.time()
    cli = Cli(args.gallery, args.dir)
    with open(os.path.join(args.dir, "secret"), "rb") as f:
        secret = f.read()
    tag = secrets.token_hex(3)
    png_path, png, cli_gallery = setup_node(cli, tag)
    status = cli.json("status", "--json")
    node_replica = int(status["replica"], 16)
    check(status["replica"] == f"{node_replica:016x}", f"status shows the replica as {status['replica']!r}")
    model = Model()
    mine = secrets.randbits(63) | (1 << 62)
    author = Author(model, mine)

    # 1. Handshake, identity (section 4).
    session = Session.open(args, secret, model, mine)
    ident = session.conn.peer_identity
    check(ident["version"] == 3, f"identity version {ident['version']}")
    check(ident["replica"] == node_replica, f"identity replica {ident['replica']:016x}, status says {status['replica']}")
    check(ident["name"] == status["name"], f"identity name {ident['name']!r}, status says {status['name']!r}")
    check(65536 <= ident["max_frame"] <= 67108864, f"identity max_frame {ident['max_frame']}")
    check(node_id(session.conn.server_static) == status["nodeID"],
          f"node ID of the static key from message 2 is {node_id(session.conn.server_static)}, status says {status['nodeID']}")
    log(f"handshake: node {ident['name']} replica {ident['replica']:016x} node ID {status['nodeID']} max_frame {ident['max_frame']}")

    # 2. Catch-up (section 5): the node's existing ops arrive, decode, re-encode byte for byte, and
    # replay on the model to exactly what `list --json` shows.
    caught = session.sync()
    check(caught == vv_from_status(status), f"caught_up {caught}, status version {status['version']}")
    check(model.vv == caught, f"the catch-up's ops reach {model.vv}, caught_up says {caught}")
    check(len(session.received) == status["ops"], f"{len(session.received)} ops in the catch-up, status counts {status['ops']}")
    compare_listings(model, cli, "after the catch-up")
    session.until(lambda: T_SYNC_REQUEST in session.seen_types, 5, "the node's sync_request")
    log(f"catch-up: {len(session.received)} ops, caught_up {{{', '.join(f'{r:016x}: {c}' for r, c in caught.items())}}}; "
        f"the model of them matches list --json")

    # 3. Push (sections 2, 7): ops of this client's replica, anchored in its model.
    g = f"py-{tag}"
    own = status["name"]
    push = [author.op(K_CREATE, name=g)]
    session.push(push)
    first = author.op(K_INSERT, gallery=g, after=None, before=None, drafts=[
        author.draft("a", url="https://example.org/a.png", aspect=1.25),
        author.draft("b", url="https://example.org/b.png", hash=hashlib.sha256(b"b").hexdigest(), size=12345, media="image/png"),
        author.draft("c", aspect=0.75)])
    session.push([first])
    a, b, c = [(first["counter"] + k, mine) for k in range(3)]
    d_op = author.op(K_INSERT, gallery=g, after=a, before=b, drafts=[author.draft("d", aspect=2.0)])
    session.push([d_op])
    d = (d_op["counter"], mine)
    session.push([author.op(K_MOVE, item=c, gallery=g, after=None, before=a)])
    session.push([author.op(K_MOVE, item=b, gallery=own, after=model.last_slot(own), before=None)])
    session.push([author.op(K_UPDATE, item=a, field=F_TITLE, value="a renamed")])
    session.push([author.op(K_UPDATE, item=d, field=F_ASPECT, value=None)])
    session.push([author.op(K_DELETE, item=d)])
    e_op = author.op(K_INSERT, gallery=g, after=model.last_slot(g), before=None,
                     drafts=[author.draft("e", placeholder=True, url="https://example.org/e.png")])
    session.push([e_op])
    e = (e_op["counter"], mine)
    # Two ops in one frame, the second depending on the first.
    commit = author.op(K_COMMIT, item=e)
    model.apply(commit)
    size_update = author.op(K_UPDATE, item=e, field=F_BYTES, value=77)
    model.apply(size_update)
    session.conn.send(T_OPS, {"ops": [commit, size_update]})
    poll(lambda: vv_from_status(cli.json("status", "--json")).get(mine) == model.vv[mine], 10, "the node to apply the pushed ops")
    compare_listings(model, cli, "after the pushed ops")
    check([row[1] for row in model.listing()[g]] == ["c", "a renamed", "e"], f"model of {g}: {model.listing()[g]}")
    log(f"push: {len(model.applied) - len(session.received)} ops of {mine:016x} (create, insert run, insert between, moves "
        f"within and across galleries, updates, clear, delete, placeholder, commit) applied as the model says")

    # 4. Live ops (sections 5, 11): changes made through the command line arrive.
    before_live = len(session.received)
    live_ids = cli.lines("add", "https://example.org/live.png", "--to", g)
    cli("update", live_ids[0], "--title", "live title")
    cli("move", f"{cli_gallery}:0", "--to", g, "--at", "0")
    session.until(lambda: len(session.received) >= before_live + 3, 10, "three live ops from the node")
    live = session.received[before_live:]
    check(op_id_text(live[0]["counter"], live[0]["replica"]) == live_ids[0] and live[0]["kind"] == K_INSERT,
          f"the live insert is {live[0]}, the command line printed {live_ids[0]}")
    check(live[0]["counter"] > max(o["counter"] + op_size(o) - 1 for o in model.applied if o["replica"] == mine),
          "the node's next op does not have a counter above the ops it received (Lamport)")
    check([o["kind"] for o in live[:3]] == [K_INSERT, K_UPDATE, K_MOVE], f"live op kinds {[o['kind'] for o in live]}")
    compare_listings(model, cli, "after the live ops")
    log(f"live: insert {live_ids[0]}, update, move arrived and replay as listed")

    # 5. Content fetch (section 8).
    blob_hash = hashlib.sha256(png).digest()
    item = [i for gal in cli.json("list", "--json")["galleries"] for i in gal["items"] if i["hash"] == blob_hash.hex()]
    check(len(item) == 1 and item[0]["bytes"] == len(png), f"the added file is not listed with its hash and size: {item}")
    size = len(png)
    requests = {
        1: (0, 0),                  # whole, "length 0: to the end"
        2: (1000, 70000),           # a range spanning chunks
        3: (size - 100, 1000),      # offset + length past the blob's end
        4: (size, 0),               # the blob's end: one empty chunk
        5: (size + 1, 10),          # an offset past the end: protocol_error
        6: (0, 0),                  # an unknown hash: not_found
        7: (0, size),               # exactly the whole blob
    }
    unknown = hashlib.sha256(b"no such blob " + tag.encode()).digest()
    for request, (offset, length) in requests.items():
        session.conn.send(T_FETCH, {"request": request, "hash": unknown if request == 6 else blob_hash, "offset": offset, "length": length})
    results = {}

    def fetch_done():
        while session.fetch_answers:
            frame_type, m = session.fetch_answers.pop(0)
            request = m["request"]
            check(request in requests, f"an answer to unknown request {request}")
            entry = results.setdefault(request, {"data": bytearray(), "total": None, "error": None, "chunks": 0, "done": False})
            check(not entry["done"], f"request {request}: an answer after the fetch ended")
            if frame_type == T_FETCH_ERROR:
                entry["error"], entry["done"] = m, True
                continue
            offset, _ = requests[request]
            check(m["offset"] == offset + len(entry["data"]), f"request {request}: chunk at {m['offset']}, expected {offset + len(entry['data'])}")
            check(m["total"] == size, f"request {request}: total {m['total']}, the blob has {size}")
            check(len(encode_payload(T_CHUNK, m)) <= 65536, f"request {request}: a chunk over my max_frame")
            entry["data"] += m["data"]
            entry["chunks"] += 1
            entry["total"] = m["total"]
            start, length = requests[request]
            end = size if length == 0 else min(start + length, size)
            if start + len(entry["data"]) >= end:
                entry["done"] = True
        return len(results) == len(requests) and all(e["done"] for e in results.values())

    session.until(fetch_done, 15, "answers to every fetch")
    check(bytes(results[1]["data"]) == png and results[1]["chunks"] >= 2, f"whole fetch: {len(results[1]['data'])} bytes in {results[1]['chunks']} chunks")
    check(hashlib.sha256(results[1]["data"]).digest() == blob_hash, "whole fetch hash")
    check(bytes(results[2]["data"]) == png[1000:71000], "ranged fetch bytes")
    check(bytes(results[7]["data"]) == png, "fetch of exactly the whole blob")
    past = results[3]
    check(past["error"] is None and bytes(past["data"]) == png[size - 100:],
          f"fetch past the end: {past['error'] or str(len(past['data'])) + ' bytes'} (expected the bytes up to the end)")
    check(results[4]["error"] is None and results[4]["chunks"] == 1 and not results[4]["data"], f"fetch at the end: {results[4]}")
    check(results[5]["error"] and results[5]["error"]["code"] == ERROR_CODES["protocol_error"], f"fetch beyond the end: {results[5]}")
    check(results[6]["error"] and results[6]["error"]["code"] == ERROR_CODES["not_found"], f"fetch of an unknown hash: {results[6]}")
    log(f"fetch: whole ({results[1]['chunks']} chunks), ranged, exact, past the end (clamped: {len(past['data'])} bytes), "
        f"at the end (one empty chunk), beyond (protocol_error: {results[5]['error']['message']!r}), unknown (not_found)")

    # 6. Ignorable and unknown frame types (section 3), on the live session.
    session.conn.send_frame(0x7E, b"skip me", flags=0x01)
    session.sync()
    log("frames: an unknown type with the ignorable flag is skipped")
    final_vv = dict(model.vv)
    session.conn.close()

    def gallery_names():
        return set(node_listing(cli))

    # 7. An unknown frame type without the flag: unknown_frame_type, closed.
    s2 = Session.open(args, secret, model, mine)
    s2.conn.send_frame(0x7E, b"x")
    error = s2.conn.expect_close()
    check(error and error.code == ERROR_CODES["unknown_frame_type"], f"unknown frame type answered with {error}")
    # Reserved flag bits: a protocol error.
    s3 = Session.open(args, secret, model, mine)
    s3.conn.send_frame(T_HEARTBEAT, b"", flags=0x02)
    error = s3.conn.expect_close()
    check(error and error.code == ERROR_CODES["protocol_error"], f"a reserved flag bit answered with {error}")
    log("frames: unknown type -> unknown_frame_type, reserved flag bit -> protocol_error")

    # 8. Ops outside the bounds (section 7): rejected_op, closed, nothing applied.
    def rejected(op, what):
        victim = Session.open(args, secret, model, mine)
        victim.conn.send(T_OPS, {"ops": [op]})
        error = victim.conn.expect_close()
        check(error and error.code == ERROR_CODES["rejected_op"], f"{what}: answered with {error}")
        vv = vv_from_status(cli.json("status", "--json"))
        check(vv.get(mine) == final_vv[mine], f"{what}: the node's vector moved to {vv.get(mine)}")
        compare_listings(model, cli, f"after {what}")

    bad_name = author.op(K_CREATE, name="")
    rejected(bad_name, "a gallery name of 0 bytes")
    rejected(author.op(K_INSERT, gallery=g, after=None, before=model.galleries[g][0], drafts=[author.draft("t" * 1025)]),
             "a title of 1,025 bytes")
    rejected(author.op(K_INSERT, gallery=g, after=None, before=model.galleries[g][0], drafts=[author.draft("x", aspect=0.0)]),
             "an aspect ratio of 0")
    rejected(author.op(K_INSERT, gallery=g, after=None, before=model.galleries[g][0], drafts=[author.draft("x", hash="ABC")]),
             "a content hash that is not 64 lowercase hex digits")
    rejected(author.op(K_INSERT, gallery=g, after=model.galleries[cli_gallery][0], before=None, drafts=[author.draft("x")]),
             "an anchor that is not a slot of the gallery")
    log("bounds: empty gallery name, 1,025-byte title, aspect 0, bad hash, foreign anchor -> rejected_op, nothing applied")

    # 9. A corrupted record (section 4.2): closed, nothing of it used, the node keeps serving.
    victim = Session.open(args, secret, model, mine)
    corrupt_name = f"corrupt-{tag}"
    victim.conn.send_raw_frames(frame(T_OPS, encode_payload(T_OPS, {"ops": [author.op(K_CREATE, name=corrupt_name)]})), corrupt=True)
    error = victim.conn.expect_close()
    check(error is None or error.code == ERROR_CODES["corrupt_frame"], f"a corrupted record answered with {error}")
    check(corrupt_name not in gallery_names(), "the corrupted record's op was applied")
    corrupt_outcome = "error corrupt_frame (sealed), closed" if error else "closed without an error"

    # 10. A wrong secret (sections 4, 13): auth_failed in the clear, nothing applied.
    wrong_name = f"wrong-{tag}"
    wrong = Connection(args.host, args.port, b"not the space's secret", static=args.static, name=args.name, replica=mine)
    refused = None
    try:
        # Message 3, identity, sync_request and an op in one write: all there before the node answers.
        wrong.handshake(then=[(T_SYNC_REQUEST, {"vv": {}}), (T_OPS, {"ops": [author.op(K_CREATE, name=wrong_name)]})])
        wrong.recv(5)
    except NodeError as e:
        refused = e
    except NodeClosed:
        refused = None
    check(refused is not None and refused.code == ERROR_CODES["auth_failed"] and not refused.sealed,
          f"a wrong secret answered with {refused}")
    wrong.close()
    check(wrong_name not in gallery_names(), "an op sent under a wrong secret was applied")

    # The node still serves: a fresh session catches up to the same vector.
    again = Session.open(args, secret, Model(), mine)
    check(again.sync() == vv_from_status(cli.json("status", "--json")), "a session after the errors")
    compare_listings(again.model, cli, "a fresh replay after the error cases")
    again.conn.close()
    log(f"corrupted record: {corrupt_outcome}; wrong secret: {refused.message!r} in the clear; nothing applied; node still serving")
    log(f"run: every check passed in {time.time() - started:.1f} s")



# ---------------------------------------------------------------------------------------------
# Experiments on what protocol.md leaves open. They report, never fail.

class LooseModel(Model):
    """Tracks only what this client holds (vector, ops): concurrent histories are allowed."""

    def apply(self, op):
        self.vv[op["replica"]] = max(self.vv.get(op["replica"], 0), op["counter"] + op_size(op) - 1)
        self.applied.append(op)


def explore(args):
    check(args.port and args.dir and args.gallery, "explore needs --port, --dir and --gallery")
    cli = Cli(args.gallery, args.dir)
    with open(os.path.join(args.dir, "secret"), "rb") as f:
        secret = f.read()
    tag = secrets.token_hex(3)
    model = LooseModel()
    mine = secrets.randbits(63) | (1 << 62)
    author = Author(model, mine)
    results = []

    def observe(name, outcome):
        results.append((name, outcome))
        log(f"OBSERVED {name}: {outcome}")

    def send_and_see(ops, frames=None):
        """Sends ops on a fresh session; 'applied', or how the node refused them."""
        s = Session.open(args, secret, model, mine)
        s.sync()
        if frames is not None:
            s.conn.send_raw_frames(frames)
        else:
            s.conn.send(T_OPS, {"ops": ops})
        last = ops[-1]
        deadline = time.time() + 3
        while time.time() < deadline:
            vv = vv_from_status(cli.json("status", "--json"))
            if vv.get(last["replica"], 0) >= last["counter"] + op_size(last) - 1:
                for op in ops:
                    model.apply(op)
                s.conn.close()
                return "applied"
            try:
                s.pump(0.2)
            except TimeoutError:
                pass
            except NodeError as e:
                s.conn.close()
                return f"refused: {ERROR_NAMES.get(e.code, e.code)} ({e.message})"
            except NodeClosed:
                return "closed without an error"
        held = cli.json("status", "--json")
        s.conn.close()
        return f"neither applied nor refused in 3 s (buffered {held['buffered']}, missing {held['health']['missingOps']})"

    def titles(gallery):
        for g in cli.json("list", "--json")["galleries"]:
            if g["gallery"] == gallery:
                return [(i["title"], i["id"]) for i in g["items"]]
        return None

    def chain(*makers):
        """Ops made one after the other (each sees the previous), not yet applied to the model."""
        saved_vv, saved_len = dict(model.vv), len(model.applied)
        ops = []
        for make in makers:
            op = make()
            model.apply(op)
            ops.append(op)
        model.vv.clear()
        model.vv.update(saved_vv)
        del model.applied[saved_len:]
        return ops

    base = Session.open(args, secret, model, mine)
    base.sync()
    base.conn.close()

    # Concurrent inserts: siblings of one left origin, of one right origin.
    g = f"ex-{tag}"
    create, x_op = chain(lambda: author.op(K_CREATE, name=g),
                         lambda: author.op(K_INSERT, gallery=g, after=None, before=None, drafts=[author.draft("X")]))
    x = (x_op["counter"], mine)
    observe("setup", send_and_see([create, x_op]))
    low, high = 0x0000000000000A01 + (secrets.randbits(16) << 16), 0xF000000000000A02 + (secrets.randbits(16) << 16)
    c = model.max_counter() + 1
    lo = {"kind": K_INSERT, "counter": c, "replica": low, "gap": c, "gallery": g, "after": x, "before": None, "drafts": [author.draft("low-right")]}
    hi = {"kind": K_INSERT, "counter": c, "replica": high, "gap": c, "gallery": g, "after": x, "before": None, "drafts": [author.draft("high-right")]}
    observe("two concurrent inserts after X, same counter", send_and_see([lo, hi]) + f" -> {titles(g)}")
    c2 = model.max_counter() + 1
    lo2 = {"kind": K_INSERT, "counter": c2 + 5, "replica": low, "gap": c2 + 5 - c, "gallery": g, "after": None, "before": x, "drafts": [author.draft("low-left")]}
    hi2 = {"kind": K_INSERT, "counter": c2, "replica": high, "gap": c2 - c, "gallery": g, "after": None, "before": x, "drafts": [author.draft("high-left")]}
    observe("two concurrent inserts before X (start of gallery), the lower replica with the higher counter",
            send_and_see([lo2, hi2]) + f" -> {titles(g)}")
    observe("text form of an op ID whose replica has leading zero digits", [t for t in titles(g) if t[0] == "low-right"])

    # Counters: an op below the Lamport clock; the node's next counter after a high one.
    r3 = secrets.randbits(63) | (1 << 62)
    low_counter = {"kind": K_INSERT, "counter": 1, "replica": r3, "gap": 1, "gallery": g, "after": x, "before": None,
                   "drafts": [author.draft("counter-1")]}
    observe(f"an insert with counter 1 anchored on X ({op_id_text(*x)})", send_and_see([low_counter]))
    r4 = secrets.randbits(63) | (1 << 62)
    big = model.max_counter() + 1000
    high_counter = {"kind": K_CREATE, "counter": big, "replica": r4, "gap": big, "name": f"far-{tag}"}
    observe(f"a create with counter {big} (1000 above the clock)", send_and_see([high_counter]))
    ids = cli.lines("add", "https://example.org/after-high.png", "--to", g)
    observe("the node's next own op after that", f"{ids[0]} (counter {parse_op_id(ids[0])[0]}; highest counter seen {big})")

    # Move anchors.
    h = f"mv-{tag}"
    ops = chain(lambda: author.op(K_CREATE, name=h),
                lambda: author.op(K_INSERT, gallery=h, after=None, before=None, drafts=[author.draft("P"), author.draft("Q"), author.draft("R")]))
    p_, q_, r_ = [(ops[1]["counter"] + k, mine) for k in range(3)]
    observe("setup moves", send_and_see(ops))
    own_slot = author.op(K_MOVE, item=p_, gallery=h, after=p_, before=q_)
    observe("a move anchored after the item's own current slot", send_and_see([own_slot]) + f" -> {titles(h)}")
    skip = author.op(K_MOVE, item=r_, gallery=h, after=None, before=q_)
    observe("a move whose anchors are not adjacent (a slot between them)", send_and_see([skip]) + f" -> {titles(h)}")
    unanchored = author.op(K_INSERT, gallery=h, after=None, before=None, drafts=[author.draft("no anchors")])
    observe("an insert with no anchors into a non-empty gallery", send_and_see([unanchored]) + f" -> {titles(h)}")
    self_before = author.op(K_MOVE, item=q_, gallery=h, after=None, before=q_)
    observe("a move anchored before the item's own current slot", send_and_see([self_before]) + f" -> {titles(h)}")

    # Insert into a gallery never created.
    nogal = f"never-created-{tag}"
    observe("an insert into a gallery never created",
            send_and_see([author.op(K_INSERT, gallery=nogal, after=None, before=None, drafts=[author.draft("orphan")])])
            + f" -> galleries include it: {nogal in set(node_listing(cli))}")

    # A ref to the same replica in the long form, then the same op in the short form.
    upd = author.op(K_UPDATE, item=x, field=F_TITLE, value="long-form ref")
    canonical = encode_op(upd)
    long_form = bytes([K_UPDATE]) + varint(upd["counter"]) + struct.pack("<Q", mine) + varint(upd["gap"]) \
        + b"\x02" + varint(x[0]) + struct.pack("<Q", mine) + bytes([F_TITLE]) + encode_value("long-form ref", upd["counter"], mine)
    observe("an update whose same-replica ref uses the long form 0x02",
            send_and_see([upd], frames=frame(T_OPS, varint(1) + long_form)))
    back = Session.open(args, secret, LooseModel(), mine)
    raw = {}
    orig = back.handle

    def grab(frame_type, flags, m):
        if frame_type == T_OPS:
            for op in m["ops"]:
                raw[(op["counter"], op["replica"])] = op["raw"]
                op.pop("raw")
                back.model.apply(op)
            return
        orig(frame_type, flags, m)
    back.handle = grab
    back.sync()
    back.conn.close()
    got = raw.get((upd["counter"], mine))
    observe("that op as the node sends it back", "long form" if got == long_form else "short form (re-encoded)" if got == canonical else repr(got))
    s = Session.open(args, secret, model, mine)
    s.sync()
    s.conn.send_raw_frames(frame(T_OPS, varint(1) + canonical))
    try:
        s.until(lambda: False, 1.5, "")
    except Mismatch:
        observe("the same op again in the short form", "accepted silently (a duplicate)")
    except NodeError as e:
        observe("the same op again in the short form", f"refused: {ERROR_NAMES.get(e.code)} ({e.message})")
    except NodeClosed:
        observe("the same op again in the short form", "closed")
    s.conn.close()

    # A frame with a valid op, a bad one, a valid one.
    a1, bad, a3 = chain(lambda: author.op(K_CREATE, name=f"batch-a-{tag}"), lambda: author.op(K_CREATE, name=""),
                        lambda: author.op(K_CREATE, name=f"batch-c-{tag}"))
    outcome = send_and_see([a1, bad, a3])
    names = set(node_listing(cli))
    observe("one frame [valid, out of bounds, valid]", f"{outcome}; first applied: {f'batch-a-{tag}' in names}, third applied: {f'batch-c-{tag}' in names}")
    if f"batch-a-{tag}" in names:
        model.apply(a1)

    # Draft fields out of order, or twice.
    shuffled = author.op(K_INSERT, gallery=g, after=None, before=x, drafts=[{"placeholder": False, "fields": [(F_ASPECT, 1.0), (F_TITLE, "shuffled")]}])
    observe("a draft listing aspectRatio before title", send_and_see([shuffled]))
    twice = author.op(K_INSERT, gallery=g, after=None, before=x, drafts=[{"placeholder": False, "fields": [(F_TITLE, "one"), (F_TITLE, "two")]}])
    observe("a draft listing title twice", send_and_see([twice]))

    # Chunk sizes for a declared max_frame.
    scratch = tempfile.mkdtemp(prefix="independent-client-")
    path, png = make_png(scratch, 300_000, seed=7)
    cli("add", path, "--to", g)
    for declared in (65536, 1000, 1_000_000):
        s = Session.open(args, secret, LooseModel(), mine, max_frame=declared)
        s.conn.max_frame = max(declared, 67108864)
        s.conn.send(T_FETCH, {"request": 1, "hash": hashlib.sha256(png).digest(), "offset": 0, "length": 0})
        sizes = []

        def done():
            while s.fetch_answers:
                _, m = s.fetch_answers.pop(0)
                sizes.append(len(m.get("data", b"")))
            return sum(sizes) >= len(png)
        s.until(done, 10, "chunks")
        s.conn.close()
        observe(f"chunk data sizes for a declared max_frame of {declared}", sizes)

    # Copies made by the node: their origin refs.
    src = cli.lines("add", "https://example.org/o1.png", "https://example.org/o2.png", "--to", g)
    s = Session.open(args, secret, LooseModel(), mine)
    s.sync()
    n = len(s.received)
    count = len(cli.json("list", g, "--json")["items"])
    cli("drag", src[0], src[1], "--to", g, "--copy", "--at", str(count))
    s.until(lambda: len(s.received) > n, 5, "the copy")
    copy = s.received[n]
    s.conn.close()
    origins = [dict(d["fields"]).get(F_ORIGIN) for d in copy.get("drafts", [])]
    observe("origin refs of a 2-item copy (decoded relative to the op's counter)",
            f"op {op_id_text(copy['counter'], copy['replica'])}, origins {[op_id_text(*o[1]) for o in origins if o]}, dragged {src}")

    # The anchors the node itself picks for moves: to the item's own place, one step right, to the end.
    k = f"own-{tag}"
    cli("new-gallery", k)
    abc = cli.lines("add", "https://example.org/A.png", "https://example.org/B.png", "https://example.org/C.png", "--to", k)
    s = Session.open(args, secret, LooseModel(), mine)
    s.sync()
    for index in ("0", "1", "2"):
        n = len(s.received)
        cli("move", abc[0], "--at", index)
        s.until(lambda: len(s.received) > n, 5, "the move")
        mv = s.received[n]
        ref = lambda r: "none" if r is None else op_id_text(*r)
        observe(f"anchors of the node's move of A to index {index} (gallery {[t for t, _ in titles(k)]} after it)",
                f"after {ref(mv['after'])}, before {ref(mv['before'])}; A={abc[0]} B={abc[1]} C={abc[2]}")
    s.conn.close()

    # Versions offered in hello.
    for versions in ([3, 4], [2, 3], [4], [2]):
        conn = Connection(args.host, args.port, secret, static=args.static, name=args.name, replica=mine)
        conn.connect()
        hello = frame(T_HELLO, encode_payload(T_HELLO, {"versions": versions}))
        hs = Handshake(True, conn.static, conn.psk, prologue_for(hello))
        conn._send(hello + frame(T_NOISE, hs.write_message1()))
        try:
            t, _, payload = conn._clear_frame(time.time() + 5, 4096)
            if t == T_ERROR:
                m = decode_payload(T_ERROR, payload)
                observe(f"hello offering {versions}", f"error {ERROR_NAMES.get(m['code'])}: {m['message']}")
            else:
                try:
                    hs.read_message2(payload)
                    observe(f"hello offering {versions}", "message 2 opens with the prologue of version 3")
                except OpenFailed:
                    observe(f"hello offering {versions}", "message 2 does not open with the prologue of version 3")
        except (NodeClosed, TimeoutError) as e:
            observe(f"hello offering {versions}", f"no answer: {e}")
        conn.close()
    log(f"explore: {len(results)} observations")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["selftest", "run", "explore"])
    parser.add_argument("--protocol", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "protocol.md"))
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int)
    parser.add_argument("--dir")
    parser.add_argument("--gallery")
    args = parser.parse_args()
    # One static key and one name for all of this run's connections: a node reports a name seen
    # under two keys as an identity conflict (section 4.1).
    args.static = secrets.token_bytes(32)
    args.name = f"independent-{secrets.token_hex(3)}"
    try:
        selftest(args.protocol)
        if args.command == "run":
            run(args)
        elif args.command == "explore":
            explore(args)
    except Mismatch as failure:
        print(f"FAIL: {failure}", flush=True)
        sys.exit(1)
    log("PASS")


if __name__ == "__main__":
    main()
