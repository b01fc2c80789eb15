"""The op encoding of protocol.md section 7: references, values, drafts, the six op kinds, and the
text form of op IDs."""

import struct

from .frames import Malformed, string, varint, zigzag


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
