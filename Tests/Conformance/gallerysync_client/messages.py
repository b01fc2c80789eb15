"""Frame types, error codes and every frame's payload (protocol.md sections 3 to 10): version vectors,
replica lists, addresses, encode_payload/decode_payload, the hello frame and the Noise prologue."""

import struct

from .checking import check
from .frames import Malformed, Reader, frame, string, varint
from .ops import CompactTables, encode_op, read_op
from .membership import T_MEMBERSHIP, decode_membership, encode_membership


T_HELLO, T_ERROR, T_HEARTBEAT, T_NOISE, T_RECORD, T_IDENTITY = 0x01, 0x05, 0x06, 0x07, 0x08, 0x09
T_SYNC_REQUEST, T_OPS, T_CAUGHT_UP, T_IHAVE, T_GRAFT, T_PRUNE = 0x10, 0x11, 0x12, 0x13, 0x14, 0x15
T_FETCH, T_CHUNK, T_FETCH_ERROR, T_CANCEL, T_ADDRESSES = 0x20, 0x21, 0x22, 0x23, 0x40
# Section 7.2: this client sends no `features`, so it is never sent `ops_compact`, and skips the
# `features` it receives (ignorable, not in KNOWN_TYPES); the self test decodes both.
T_OPS_COMPACT, T_FEATURES = 0x18, 0x19
# Section 11: this client relays nothing, so it sends no beacon (its node pushes it every op) and
# skips the `tree` and `ihave_total` it receives (ignorable, not in KNOWN_TYPES); the self test
# decodes both.
T_TREE, T_IHAVE_TOTAL = 0x17, 0x1A
# The types this client decodes; any other type that carries the ignorable flag is skipped (section 3).
KNOWN_TYPES = frozenset({T_HELLO, T_ERROR, T_HEARTBEAT, T_NOISE, T_RECORD, T_IDENTITY, T_SYNC_REQUEST, T_OPS,
                         T_CAUGHT_UP, T_IHAVE, T_GRAFT, T_PRUNE, T_FETCH, T_CHUNK, T_FETCH_ERROR, T_CANCEL,
                         T_ADDRESSES, T_MEMBERSHIP})

ERROR_NAMES = {1: "protocol_error", 2: "unsupported_version", 3: "auth_failed", 4: "frame_too_large",
               5: "unknown_frame_type", 6: "timeout", 7: "slow_peer", 8: "shutting_down", 9: "rejected_op",
               10: "duplicate_connection", 11: "internal_error", 12: "not_found", 13: "cancelled",
               14: "divergent_op", 15: "corrupt_frame", 16: "identity_mismatch", 17: "forged_op"}
ERROR_CODES = {name: code for code, name in ERROR_NAMES.items()}


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


def encode_payload(frame_type, m, tables=None) -> bytes:
    """The payload of one frame from its fields (a dict, as decode_payload returns); `ops_compact`
    with the sender's CompactTables of the direction (fresh ones if none are given)."""
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
    if frame_type == T_OPS_COMPACT:
        tables = CompactTables() if tables is None else tables
        return varint(len(m["ops"])) + b"".join(encode_op(op, tables) for op in m["ops"])
    if frame_type == T_FEATURES:
        return varint(m["bits"])
    if frame_type == T_TREE:
        return (struct.pack("<Q", m["root"]) + varint(m["since"]) + varint(m["round"]) + varint(m["hops"])
                + struct.pack("<Q", m["parent"] or 0))
    if frame_type == T_IHAVE_TOTAL:
        return varint(m["total"])
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
    if frame_type == T_MEMBERSHIP:
        return encode_membership(m)
    raise ValueError(f"no encoder for frame type {frame_type:#x}")


def decode_payload(frame_type, payload, tables=None):
    """A frame's fields from its payload; `ops_compact` with the receiver's CompactTables of the
    direction (fresh ones if none are given)."""
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
    elif frame_type == T_OPS_COMPACT:
        tables = CompactTables() if tables is None else tables
        m = {"ops": [read_op(r, tables) for _ in range(r.varint())]}
    elif frame_type == T_FEATURES:
        m = {"bits": r.varint()}
    elif frame_type == T_TREE:
        m = {"root": r.u64(), "since": r.varint(), "round": r.varint(), "hops": r.varint()}
        m["parent"] = r.u64() or None
    elif frame_type == T_IHAVE_TOTAL:
        m = {"total": r.varint()}
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
    elif frame_type == T_MEMBERSHIP:
        return decode_membership(payload)
    else:
        raise Malformed(f"unknown frame type {frame_type:#x}")
    r.end()
    return m


def hello_frame():
    return frame(T_HELLO, encode_payload(T_HELLO, {"versions": [4]}))


def prologue_for(hello):
    return b"GallerySync" + struct.pack("<H", 4) + hello
