"""The run against a real node (`gallery serve DIR`): gives the node a history through its command
line, then runs the check groups of the checks_* modules in order on one shared RunContext."""

import os
import re
import secrets
import tempfile
import time

from .checking import check, log
from .model import Author, Model
from .signing import Signer
from .node_cli import Cli, make_png
from .checks_sync import check_catch_up, check_handshake, check_live_ops, check_pushed_ops
from .checks_fetch import check_fetches
from .checks_frame_types import check_ignorable_frame, check_refused_frames
from .checks_errors import check_corrupted_record_and_wrong_secret, check_forged_ops, check_op_bounds


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


class RunContext:
    """What the run's check groups share: the node, its command line, this client's replica and model."""

    def __init__(self, args, cli, secret, tag, png, cli_gallery, status, node_replica, model, mine, author):
        self.args, self.cli, self.secret, self.tag = args, cli, secret, tag
        self.png, self.cli_gallery = png, cli_gallery
        self.status, self.node_replica = status, node_replica
        self.model, self.mine, self.author = model, mine, author
        self.session = None   # the live session: opened by check_handshake, closed by check_ignorable_frame
        self.gallery = None   # this client's gallery: made by check_pushed_ops
        self.final_vv = None  # the model's vector once the live session ends


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
    # This client's replica is bound to the signing key of its static key, with a fresh salt (section 7.3).
    signer = Signer(secret, args.static, secrets.randbits(64))
    mine = signer.replica
    author = Author(model, mine, signer)
    ctx = RunContext(args, cli, secret, tag, png, cli_gallery, status, node_replica, model, mine, author)
    check_handshake(ctx)
    check_catch_up(ctx)
    check_pushed_ops(ctx)
    check_live_ops(ctx)
    check_fetches(ctx)
    check_ignorable_frame(ctx)
    check_refused_frames(ctx)
    check_op_bounds(ctx)
    check_forged_ops(ctx)
    check_corrupted_record_and_wrong_secret(ctx)
    log(f"run: every check passed in {time.time() - started:.1f} s")
