"""Membership (protocol.md section 4.3): the `membership` frame's payload (type 0x41, ignorable) of its
four kinds, member records and their signatures, and the rule by which a receiver takes a record."""

import struct

from .frames import Malformed, Reader, string, varint
from .signing import ed25519_sign, ed25519_verify

T_MEMBERSHIP = 0x41
M_RECORDS, M_JOIN_REQUEST, M_JOIN_GRANT, M_SPACE_KEY = 0, 1, 2, 3
R_ADDED, R_REVOKED = 0, 1
RECORD_CONTEXT = b"GallerySync member v4"  # the 21 ASCII bytes before every record's signed bytes
MAX_RECORDS, MAX_CUTOFFS, MAX_SECRET = 1024, 64, 1024


def record_body(record):
    """Every byte of a record before its signature: kind, subject's static key, its signing key, name,
    at (u64), the signer's signing key, for `revoked` the cut-offs."""
    out = bytes([record["kind"]]) + record["node_key"] + record["signing_key"] + string(record["name"])
    out += struct.pack("<Q", record["at"]) + record["signer"]
    if record["kind"] == R_REVOKED:
        out += varint(len(record["cutoffs"]))
        for replica, counter in record["cutoffs"]:
            out += struct.pack("<Q", replica) + varint(counter)
    return out


def sign_record(record, seed, signer_public):
    record = dict(record, signer=signer_public)
    record["signature"] = ed25519_sign(seed, RECORD_CONTEXT + record_body(record))
    return record


def record_signature_holds(record):
    return ed25519_verify(record["signer"], RECORD_CONTEXT + record_body(record), record["signature"])


def read_record(r: Reader):
    kind = r.u8()
    if kind not in (R_ADDED, R_REVOKED):
        raise Malformed(f"member record kind {kind}")
    record = {"kind": kind, "node_key": r.take(32), "signing_key": r.take(32), "name": r.string(255), "at": r.u64(),
              "signer": r.take(32)}
    if kind == R_REVOKED:
        count = r.varint()
        if count > MAX_CUTOFFS:
            raise Malformed(f"{count} cut-offs")
        record["cutoffs"] = [(r.u64(), r.varint()) for _ in range(count)]
    record["signature"] = r.take(64)
    return record


def _records(r: Reader):
    count = r.varint()
    if count > MAX_RECORDS:
        raise Malformed(f"{count} member records")
    return [read_record(r) for _ in range(count)]


def _secret(r: Reader):
    count = r.varint()
    if not 1 <= count <= MAX_SECRET:
        raise Malformed(f"a secret of {count} bytes")
    return r.take(count)


def encode_membership(m) -> bytes:
    kind = m["kind"]
    if kind == M_RECORDS:
        return bytes([kind]) + varint(len(m["records"])) + b"".join(record_body(x) + x["signature"] for x in m["records"])
    if kind == M_JOIN_REQUEST:
        return bytes([kind]) + m["signing_key"]
    if kind == M_JOIN_GRANT:
        return (bytes([kind]) + varint(len(m["secret"])) + m["secret"] + varint(m["generation"]) + m["space"]
                + varint(len(m["records"])) + b"".join(record_body(x) + x["signature"] for x in m["records"]))
    if kind == M_SPACE_KEY:
        return bytes([kind]) + varint(len(m["secret"])) + m["secret"] + varint(m["generation"])
    raise ValueError(f"membership kind {kind}")


def decode_membership(payload):
    r = Reader(payload)
    kind = r.u8()
    if kind == M_RECORDS:
        m = {"kind": kind, "records": _records(r)}
    elif kind == M_JOIN_REQUEST:
        m = {"kind": kind, "signing_key": r.take(32)}
    elif kind == M_JOIN_GRANT:
        m = {"kind": kind, "secret": _secret(r), "generation": r.varint(), "space": r.take(16), "records": _records(r)}
    elif kind == M_SPACE_KEY:
        m = {"kind": kind, "secret": _secret(r), "generation": r.varint()}
    else:
        raise Malformed(f"membership kind {kind}")
    r.end()
    return m


def take_records(records):
    """The records a receiver takes, in any order of arrival: a record whose signature holds and whose
    signer is the subject itself or a member (added, not revoked). Returns (taken, members' signing keys)."""
    taken, pending = [], list(records)
    while True:
        members = members_of(taken)
        fresh = [x for x in pending if record_signature_holds(x)
                 and (x["signer"] == x["signing_key"] or x["signer"] in members)]
        if not fresh:
            return taken, members
        taken += fresh
        pending = [x for x in pending if x not in fresh]


def members_of(records):
    added = {x["signing_key"] for x in records if x["kind"] == R_ADDED}
    revoked = {x["signing_key"] for x in records if x["kind"] == R_REVOKED}
    return added - revoked
