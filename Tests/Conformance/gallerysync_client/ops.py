"""The op encoding of protocol.md section 7: references, values, drafts, the eight op kinds, and the
text form of op IDs."""

import struct

from .frames import Malformed, string, varint, zigzag


# Ops (section 7). An op is a dict: kind, counter, replica, gap, and the body's fields. References
# are None or (counter, replica). Values: None, str, float (tag 2), int (tag 3), ("ref", (c, r)).

K_CREATE, K_INSERT, K_MOVE, K_DELETE, K_UPDATE, K_COMMIT = 1, 2, 3, 4, 5, 6
K_RENAME_GALLERY, K_DELETE_GALLERY = 7, 8
F_TITLE, F_URL, F_ASPECT, F_HASH, F_BYTES, F_MEDIA, F_ORIGIN, F_TRASHED = 1, 2, 3, 4, 5, 6, 7, 8
FIELD_NAMES = {1: "title", 2: "url", 3: "aspectRatio", 4: "contentHash", 5: "byteSize", 6: "mediaType", 7: "origin",
               8: "trashed"}


class CanonicalNames:
    """Replica IDs as u64 and gallery names as strings: the encoding of `ops` (section 7)."""

    def put_replica(self, replica):
        return struct.pack("<Q", replica)

    def put_gallery(self, name):
        return string(name)

    def get_replica(self, r):
        return r.u64()

    def get_gallery(self, r):
        return r.string()


CANONICAL = CanonicalNames()


class CompactTables:
    """One direction's tables of `ops_compact` (section 7.2): rep/gal = 0 then the value (appended
    while the table is below its bound), or k >= 1 for entry k - 1."""

    REPLICAS, GALLERIES = 4096, 1024

    def __init__(self):
        self.replicas, self.galleries = [], []

    def _put(self, table, bound, value, inline):
        if value in table:
            return varint(table.index(value) + 1)
        if len(table) < bound:
            table.append(value)
        return b"\x00" + inline

    def _get(self, r, table, bound, read_inline, what):
        k = r.varint()
        if k == 0:
            value = read_inline()
            if len(table) < bound:
                table.append(value)
            return value
        if k > len(table):
            raise Malformed(f"{what} index {k} past a table of {len(table)}")
        return table[k - 1]

    def put_replica(self, replica):
        return self._put(self.replicas, self.REPLICAS, replica, struct.pack("<Q", replica))

    def put_gallery(self, name):
        return self._put(self.galleries, self.GALLERIES, name, string(name))

    def get_replica(self, r):
        return self._get(r, self.replicas, self.REPLICAS, r.u64, "replica")

    def get_gallery(self, r):
        return self._get(r, self.galleries, self.GALLERIES, r.string, "gallery")


def encode_ref(ref, op_counter, op_replica, names=CANONICAL) -> bytes:
    if ref is None:
        return b"\x00"
    counter, replica = ref
    if replica == op_replica and counter < op_counter:
        return b"\x01" + varint(op_counter - counter)
    return b"\x02" + varint(counter) + names.put_replica(replica)


def read_ref(r, op_counter, op_replica, names=CANONICAL):
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
        return (counter, names.get_replica(r))
    raise Malformed(f"unknown ref tag {tag}")


def encode_value(value, op_counter, op_replica, names=CANONICAL) -> bytes:
    if value is None:
        return b"\x00"
    if isinstance(value, str):
        return b"\x01" + string(value)
    if isinstance(value, float):
        return b"\x02" + struct.pack("<d", value)
    if isinstance(value, int):
        return b"\x03" + zigzag(value)
    if isinstance(value, tuple) and value[0] == "ref":
        return b"\x04" + encode_ref(value[1], op_counter, op_replica, names)
    raise ValueError(f"cannot encode value {value!r}")


def read_value(r, op_counter, op_replica, names=CANONICAL):
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
        return ("ref", read_ref(r, op_counter, op_replica, names))
    raise Malformed(f"unknown value tag {tag}")


SEALED = 0x80


def encode_seal(seal) -> bytes:
    """Section 7.3: flags (bit 0 key claim, bit 1 signature), then the claim, then the signature."""
    flags = (1 if "key" in seal else 0) | (2 if "sig" in seal else 0)
    out = bytes([flags])
    if "key" in seal:
        out += seal["key"] + struct.pack("<Q", seal["salt"])
    if "sig" in seal:
        out += seal["sig"]
    return out


def encode_op(op, names=CANONICAL, sealed=True) -> bytes:
    """The op as in `ops`, or, with a direction's CompactTables as `names`, as in `ops_compact`; with its
    seal unless `sealed` is false (the canonical encoding that chain hashes and duplicates use)."""
    c, rep = op["counter"], op["replica"]
    seal = op.get("seal") if sealed else None
    out = bytes([op["kind"] | (SEALED if seal else 0)]) + varint(c) + names.put_replica(rep) + varint(op["gap"])
    kind = op["kind"]
    if kind in (K_CREATE, K_DELETE_GALLERY):
        out += string(op["name"])
    elif kind == K_RENAME_GALLERY:
        out += string(op["name"]) + string(op["to"])
    elif kind == K_INSERT:
        out += names.put_gallery(op["gallery"])
        out += encode_ref(op["after"], c, rep, names) + encode_ref(op["before"], c, rep, names)
        out += varint(len(op["drafts"]))
        for draft in op["drafts"]:
            out += bytes([1 if draft.get("placeholder") else 0]) + varint(len(draft["fields"]))
            for field, value in draft["fields"]:
                out += bytes([field]) + encode_value(value, c, rep, names)
    elif kind == K_MOVE:
        out += encode_ref(op["item"], c, rep, names) + names.put_gallery(op["gallery"])
        out += encode_ref(op["after"], c, rep, names) + encode_ref(op["before"], c, rep, names)
    elif kind in (K_DELETE, K_COMMIT):
        out += encode_ref(op["item"], c, rep, names)
    elif kind == K_UPDATE:
        out += encode_ref(op["item"], c, rep, names) + bytes([op["field"]]) + encode_value(op["value"], c, rep, names)
    else:
        raise ValueError(f"unknown op kind {kind}")
    if seal:
        out += encode_seal(seal)
    return out


def read_op(r, names=CANONICAL):
    """One op as in `ops`, or, with a direction's CompactTables as `names`, as in `ops_compact`."""
    flagged = r.u8()
    kind = flagged & ~SEALED
    c = r.varint()
    rep = names.get_replica(r)
    gap = r.varint()
    if gap < 1 or gap > c:
        raise Malformed(f"op {c}@{rep:016x}: gap {gap}")
    op = {"kind": kind, "counter": c, "replica": rep, "gap": gap}
    if kind in (K_CREATE, K_DELETE_GALLERY):
        op["name"] = r.string()
    elif kind == K_RENAME_GALLERY:
        op["name"] = r.string()
        op["to"] = r.string()
    elif kind == K_INSERT:
        op["gallery"] = names.get_gallery(r)
        op["after"] = read_ref(r, c, rep, names)
        op["before"] = read_ref(r, c, rep, names)
        drafts = []
        for _ in range(r.varint()):
            flags = r.u8()
            if flags & ~1:
                raise Malformed("draft flags with reserved bits")
            fields = []
            for _ in range(r.varint()):
                field = r.u8()
                fields.append((field, read_value(r, c, rep, names)))
            drafts.append({"placeholder": bool(flags & 1), "fields": fields})
        op["drafts"] = drafts
    elif kind == K_MOVE:
        op["item"] = read_ref(r, c, rep, names)
        op["gallery"] = names.get_gallery(r)
        op["after"] = read_ref(r, c, rep, names)
        op["before"] = read_ref(r, c, rep, names)
    elif kind in (K_DELETE, K_COMMIT):
        op["item"] = read_ref(r, c, rep, names)
    elif kind == K_UPDATE:
        op["item"] = read_ref(r, c, rep, names)
        op["field"] = r.u8()
        op["value"] = read_value(r, c, rep, names)
    else:
        raise Malformed(f"unknown op kind {kind}")
    if flagged & SEALED:
        flags = r.u8()
        if flags & ~3 or flags == 0:
            raise Malformed(f"seal flags {flags}")
        seal = {}
        if flags & 1:
            if gap != c:
                raise Malformed("a key claim on an op that is not its replica's first")
            seal["key"] = r.take(32)
            seal["salt"] = struct.unpack("<Q", r.take(8))[0]
        if flags & 2:
            seal["sig"] = r.take(64)
        op["seal"] = seal
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
