"""The run's error cases: ops outside the bounds (section 7), a corrupted record (section 4.2) and a
wrong secret (sections 4, 13); nothing of them is applied and the node keeps serving."""

from .checking import check, log
from .frames import frame
from .ops import K_CREATE, K_INSERT
from .messages import ERROR_CODES, T_OPS, T_SYNC_REQUEST, encode_payload
from .connection import Connection, NodeClosed, NodeError
from .model import Model
from .node_cli import compare_listings, node_listing, vv_from_status
from .session import Session


def check_op_bounds(ctx):
    """Each op outside a bound on a fresh session: rejected_op, closed, nothing applied."""
    args, secret, model, mine, cli = ctx.args, ctx.secret, ctx.model, ctx.mine, ctx.cli
    author, g, cli_gallery, final_vv = ctx.author, ctx.gallery, ctx.cli_gallery, ctx.final_vv
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


def check_corrupted_record_and_wrong_secret(ctx):
    """Neither is applied; then a fresh session still catches up to the node's vector."""
    args, secret, model, mine, cli = ctx.args, ctx.secret, ctx.model, ctx.mine, ctx.cli
    author, tag = ctx.author, ctx.tag

    def gallery_names():
        return set(node_listing(cli))

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


def check_forged_ops(ctx):
    """Section 7.3: an op under the node's replica signed by this client's key, this client's next op with
    one bit of its signature flipped, and a replica of this key in another space: each forged_op, closed,
    nothing applied."""
    from .model import Author
    from .signing import Signer
    args, secret, model, mine, cli = ctx.args, ctx.secret, ctx.model, ctx.mine, ctx.cli
    author, g, final_vv = ctx.author, ctx.gallery, ctx.final_vv
    before = vv_from_status(cli.json("status", "--json"))

    def forged(op, what):
        victim = Session.open(args, secret, model, mine)
        victim.conn.send(T_OPS, {"ops": [op]})
        error = victim.conn.expect_close()
        check(error and error.code == ERROR_CODES["forged_op"], f"{what}: answered with {error}")
        vv = vv_from_status(cli.json("status", "--json"))
        check(vv == before, f"{what}: the node's vector moved from {before} to {vv}")
        compare_listings(model, cli, f"after {what}")

    # The node's own replica, next counter, signed with this client's key over the node's chain.
    node = ctx.node_replica
    impostor = Author(model, node, None)
    op = impostor.op(K_CREATE, name=f"forged-{ctx.tag}")
    op["gap"] = op["counter"] - before.get(node, 0)
    own = author.signer
    from .ops import encode_op
    from .signing import chain, ed25519_sign, genesis, message, space_id
    held = [o for o in model.applied if o["replica"] == node]
    h = genesis(space_id(secret), node, held[0]["seal"]["key"])
    for o in held + [op]:
        h = chain(h, encode_op(o, sealed=False))
    op["seal"] = {"sig": ed25519_sign(own.seed, message(node, op["counter"], h))}
    forged(op, "an op under the node's replica signed by another key")
    flipped = author.op(K_CREATE, name=f"flipped-{ctx.tag}")
    sig = bytearray(flipped["seal"]["sig"])
    sig[7] ^= 0x01
    flipped["seal"]["sig"] = bytes(sig)
    forged(flipped, "this client's op with one bit of its signature flipped")
    elsewhere = Signer(secret + b" elsewhere", args.static, own.salt)
    stranger = Author(Model(), elsewhere.replica, elsewhere)
    forged(stranger.op(K_CREATE, name=f"elsewhere-{ctx.tag}"), "an op of this key's replica in another space")
    log("forged: another replica's op, a flipped signature bit, a replica of another space -> forged_op, nothing applied")
