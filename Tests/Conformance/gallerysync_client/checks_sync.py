"""The run's checks over its live session: the handshake and identity (section 4), the catch-up
(section 5), ops pushed by this client (sections 2, 7) and live ops made through the command line
(sections 5, 11)."""

import hashlib

from .checking import check, log
from .noise import node_id
from .ops import (F_ASPECT, F_BYTES, F_TITLE, K_COMMIT, K_CREATE, K_DELETE, K_INSERT, K_MOVE, K_UPDATE, op_id_text,
    op_size)
from .messages import T_OPS, T_SYNC_REQUEST
from .membership import R_ADDED, record_signature_holds, take_records
from .node_cli import compare_listings, poll, vv_from_status
from .session import Session


def check_handshake(ctx):
    """Opens the run's session; the node's identity and node ID agree with `status --json`."""
    args, secret, model, mine = ctx.args, ctx.secret, ctx.model, ctx.mine
    status, node_replica = ctx.status, ctx.node_replica
    # 1. Handshake, identity (section 4).
    session = Session.open(args, secret, model, mine)
    ident = session.conn.peer_identity
    check(ident["version"] == 4, f"identity version {ident['version']}")
    check(ident["replica"] == node_replica, f"identity replica {ident['replica']:016x}, status says {status['replica']}")
    check(ident["name"] == status["name"], f"identity name {ident['name']!r}, status says {status['name']!r}")
    check(65536 <= ident["max_frame"] <= 67108864, f"identity max_frame {ident['max_frame']}")
    check(node_id(session.conn.server_static) == status["nodeID"],
          f"node ID of the static key from message 2 is {node_id(session.conn.server_static)}, status says {status['nodeID']}")
    log(f"handshake: node {ident['name']} replica {ident['replica']:016x} node ID {status['nodeID']} max_frame {ident['max_frame']}")
    ctx.session = session


def check_catch_up(ctx):
    """The node's existing ops replay on the model to what `list --json` shows."""
    session, status, model, cli = ctx.session, ctx.status, ctx.model, ctx.cli
    # 2. Catch-up (section 5): the node's existing ops arrive, decode, re-encode byte for byte, and
    # replay on the model to exactly what `list --json` shows.
    caught = session.sync()
    check(caught == vv_from_status(status), f"caught_up {caught}, status version {status['version']}")
    check(model.vv == caught, f"the catch-up's ops reach {model.vv}, caught_up says {caught}")
    check(len(session.received) == status["ops"], f"{len(session.received)} ops in the catch-up, status counts {status['ops']}")
    compare_listings(model, cli, "after the catch-up")
    # Section 7.3: the node's ops are signed; one signature per replica and frame covers them.
    check(session.signatures_checked >= 1, "the catch-up's ops carry no signature that covers them")
    check(all("key" in o.get("seal", {}) for o in session.received if o["gap"] == o["counter"]),
          "a replica's first op claims no key")
    session.until(lambda: T_SYNC_REQUEST in session.seen_types, 5, "the node's sync_request")
    check_member_records(session)
    log(f"catch-up: {len(session.received)} ops, caught_up {{{', '.join(f'{r:016x}: {c}' for r, c in caught.items())}}}; "
        f"the model of them matches list --json; {session.signatures_checked} signatures checked")


def check_member_records(session):
    """Section 4.3: a new session starts with the records the node holds; a node made with a secret
    file registers itself (an `added` record of its own static key, signed by itself), its signing
    key is the one its replicas claim (section 7.3), and every record's signature holds."""
    session.until(lambda: session.member_records, 5, "the node's member records")
    records = session.member_records
    check(all(record_signature_holds(x) for x in records), "a member record whose signature does not hold")
    own = [x for x in records if x["kind"] == R_ADDED and x["node_key"] == session.conn.server_static]
    check(len(own) == 1 and own[0]["signer"] == own[0]["signing_key"], f"the node's own added record: {own}")
    claimed = {o["seal"]["key"] for o in session.received if "key" in o.get("seal", {})}
    check(own[0]["signing_key"] in claimed, "the node's signing key in its record is not the key its ops claim")
    taken, members = take_records(records)
    check(len(taken) == len(records) and own[0]["signing_key"] in members, "the node's records make it a member")
    log(f"membership: {len(records)} records, signatures hold; the node added itself under the key its ops claim")


def check_pushed_ops(ctx):
    """Ops of this client's replica, pushed one per frame and two in one frame, apply as the model says."""
    session, status, model, cli = ctx.session, ctx.status, ctx.model, ctx.cli
    tag, mine, author = ctx.tag, ctx.mine, ctx.author
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
    ctx.gallery = g


def check_live_ops(ctx):
    """Changes made through the command line arrive on the session and replay as listed."""
    session, model, cli = ctx.session, ctx.model, ctx.cli
    g, cli_gallery, mine = ctx.gallery, ctx.cli_gallery, ctx.mine
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
