"""Signed ops (protocol.md section 7.3): Ed25519 (RFC 8032, section 6's reference method, written here
from the RFC), the signing key derived from the X25519 node key, replica IDs bound to it, the chain
hash, the signed message, and a checker of the node's runs."""

import hashlib
import struct

from .primitives import hkdf_rfc5869

P = 2**255 - 19
L = 2**252 + 27742317777372353535851937790883648493
D = -121665 * pow(121666, P - 2, P) % P
SQRT_M1 = pow(2, (P - 1) // 4, P)


def _sha512(data):
    return hashlib.sha512(data).digest()


def _add(a, b):
    x1, y1, z1, t1 = a
    x2, y2, z2, t2 = b
    aa = (y1 - x1) * (y2 - x2) % P
    bb = (y1 + x1) * (y2 + x2) % P
    cc = 2 * t1 * t2 * D % P
    dd = 2 * z1 * z2 % P
    e, f, g, h = bb - aa, dd - cc, dd + cc, bb + aa
    return (e * f % P, g * h % P, f * g % P, e * h % P)


def _mul(s, point):
    q = (0, 1, 1, 0)
    while s > 0:
        if s & 1:
            q = _add(q, point)
        point = _add(point, point)
        s >>= 1
    return q


def _equal(a, b):
    return (a[0] * b[2] - b[0] * a[2]) % P == 0 and (a[1] * b[2] - b[1] * a[2]) % P == 0


def _recover_x(y, sign):
    if y >= P:
        return None
    x2 = (y * y - 1) * pow(D * y * y + 1, P - 2, P)
    if x2 == 0:
        return None if sign else 0
    x = pow(x2, (P + 3) // 8, P)
    if (x * x - x2) % P != 0:
        x = x * SQRT_M1 % P
    if (x * x - x2) % P != 0:
        return None
    if (x & 1) != sign:
        x = P - x
    return x


GY = 4 * pow(5, P - 2, P) % P
GX = _recover_x(GY, 0)
G = (GX, GY, 1, GX * GY % P)


def _compress(point):
    zinv = pow(point[2], P - 2, P)
    x, y = point[0] * zinv % P, point[1] * zinv % P
    return int.to_bytes(y | ((x & 1) << 255), 32, "little")


def _decompress(data):
    if len(data) != 32:
        return None
    y = int.from_bytes(data, "little")
    sign = y >> 255
    y &= (1 << 255) - 1
    x = _recover_x(y, sign)
    if x is None:
        return None
    return (x, y, 1, x * y % P)


def _expand(seed):
    h = _sha512(seed)
    a = int.from_bytes(h[:32], "little")
    a &= (1 << 254) - 8
    a |= 1 << 254
    return a, h[32:]


def ed25519_public(seed):
    return _compress(_mul(_expand(seed)[0], G))


def ed25519_sign(seed, message):
    a, prefix = _expand(seed)
    public = _compress(_mul(a, G))
    r = int.from_bytes(_sha512(prefix + message), "little") % L
    rs = _compress(_mul(r, G))
    k = int.from_bytes(_sha512(rs + public + message), "little") % L
    return rs + int.to_bytes((r + k * a) % L, 32, "little")


def ed25519_verify(public, message, signature):
    """RFC 8032 5.1.7, cofactorless, strict: S below L, A and R canonical, A not of small order."""
    if len(public) != 32 or len(signature) != 64:
        return False
    a = _decompress(public)
    if a is None or _compress(a) != public or _equal(_mul(8, a), (0, 1, 1, 0)):
        return False
    rs = signature[:32]
    if _decompress(rs) is None:
        return False
    s = int.from_bytes(signature[32:], "little")
    if s >= L:
        return False
    k = int.from_bytes(_sha512(rs + public + message), "little") % L
    # [S]B - [k]A, encoded, must be R byte for byte.
    neg_a = ((P - a[0]) % P, a[1], a[2], (P - a[3]) % P)
    return _compress(_add(_mul(s, G), _mul(k, neg_a))) == rs


def space_id(secret):
    return hashlib.sha256(b"gallerysync space id v1" + secret).digest()[:16]


def signing_seed(x25519_private):
    return hkdf_rfc5869(x25519_private, b"", b"GallerySync signing key v4", 32)


def replica_id(space, public, salt):
    digest = hashlib.sha256(b"GallerySync replica v4" + space + public + struct.pack("<Q", salt)).digest()
    return int.from_bytes(digest[:8], "little")


def genesis(space, replica, public):
    return hashlib.sha256(b"GallerySync chain v4" + space + struct.pack("<Q", replica) + public).digest()


def chain(previous, unsealed_encoding):
    return hashlib.sha256(previous + unsealed_encoding).digest()


def message(replica, counter, chain_hash):
    return b"GallerySync op v4" + struct.pack("<QQ", replica, counter) + chain_hash


class Signer:
    """Seals the ops of one replica bound to a key: its first op claims the key; each op's signature
    covers the replica's chain up to it, as the model holds it."""

    def __init__(self, secret, x25519_private, salt):
        self.space = space_id(secret)
        self.seed = signing_seed(x25519_private)
        self.public = ed25519_public(self.seed)
        self.salt = salt
        self.replica = replica_id(self.space, self.public, salt)

    def head(self, applied):
        """The chain hash after the replica's ops in `applied` (in the order applied)."""
        from .ops import encode_op
        h = genesis(self.space, self.replica, self.public)
        for op in applied:
            if op["replica"] == self.replica:
                h = chain(h, encode_op(op, sealed=False))
        return h

    def seal(self, op, applied):
        from .ops import encode_op
        h = chain(self.head(applied), encode_op(op, sealed=False))
        seal = {"sig": ed25519_sign(self.seed, message(self.replica, op["counter"], h))}
        if op["gap"] == op["counter"]:
            seal["key"], seal["salt"] = self.public, self.salt
        op["seal"] = seal
        return op


def is_checkpoint(op):
    """Section 7.3, "Checkpoints": the op's last counter lies in a later block of 4,096 counters than its
    predecessor's last counter (`previous`, counter - gap)."""
    from .ops import op_size
    previous = op["counter"] - op["gap"]
    last = op["counter"] + op_size(op) - 1
    return previous >> 12 != last >> 12


def check_runs(space, ops, applied):
    """Checks, per replica, that the last signed op of the frame's ops (those the model lacks) holds for
    the chain the model holds plus those ops, and so does every checkpoint's signature, as section 7.3
    says a receiver does. Returns (checked signatures, ops not covered) or raises ValueError."""
    from .ops import encode_op
    checked, uncovered = 0, 0
    by_replica = {}
    for op in ops:
        by_replica.setdefault(op["replica"], []).append(op)
    for replica, run in by_replica.items():
        held = [o for o in applied if o["replica"] == replica]
        known = {(o["counter"]) for o in held}
        run = [o for o in run if o["counter"] not in known]
        if not run:
            continue
        first = held[0] if held else run[0]
        claim = first.get("seal", {})
        if "key" not in claim:
            raise ValueError(f"replica {replica:016x}: its first op claims no key")
        if replica_id(space, claim["key"], claim["salt"]) != replica:
            raise ValueError(f"replica {replica:016x} is not bound to the key it claims")
        h = genesis(space, replica, claim["key"])
        last_signed, hashes = None, []
        for o in held + run:
            h = chain(h, encode_op(o, sealed=False))
            hashes.append((o, h))
        for o, hh in hashes:
            if "sig" in o.get("seal", {}) and o in run:
                last_signed = (o, hh)
        if last_signed is None:
            uncovered += len(run)
            continue
        o, hh = last_signed
        if not ed25519_verify(claim["key"], message(replica, o["counter"], hh), o["seal"]["sig"]):
            raise ValueError(f"op {o['counter']}@{replica:016x}: its signature does not hold")
        checked += 1
        uncovered += len(run) - 1 - run.index(o)
        for c, hc in hashes:
            if c is not o and c in run and "sig" in c.get("seal", {}) and is_checkpoint(c):
                if not ed25519_verify(claim["key"], message(replica, c["counter"], hc), c["seal"]["sig"]):
                    raise ValueError(f"op {c['counter']}@{replica:016x}: its checkpoint signature does not hold")
                checked += 1
    return checked, uncovered
