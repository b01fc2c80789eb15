"""Experiments on what protocol.md leaves open: concurrent inserts, counters, move anchors, long-form
refs, mixed batches, draft field order, chunk sizes, copies, the node's own anchors, hello versions.
They report what the node does and never fail."""

import hashlib
import os
import secrets
import struct
import tempfile
import time

from .checking import Mismatch, check, log
from .primitives import OpenFailed
from .noise import Handshake
from .frames import frame, varint
from .ops import (F_ASPECT, F_ORIGIN, F_TITLE, K_CREATE, K_INSERT, K_MOVE, K_UPDATE, encode_op, encode_value,
    op_id_text, op_size, parse_op_id)
from .messages import (ERROR_NAMES, T_ERROR, T_FETCH, T_HELLO, T_NOISE, T_OPS, decode_payload, encode_payload,
    prologue_for)
from .connection import Connection, NodeClosed, NodeError
from .model import Author, LooseModel
from .node_cli import Cli, make_png, node_listing, vv_from_status
from .session import Session


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
