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
# The client itself is the package gallerysync_client beside this file (its __init__.py lists the
# modules); this file is only its command line.

import argparse
import os
import secrets
import sys

sys.dont_write_bytecode = True  # leave no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from gallerysync_client.checking import Mismatch, log  # noqa: E402
from gallerysync_client.explore import explore  # noqa: E402
from gallerysync_client.run import run  # noqa: E402
from gallerysync_client.selftest import selftest  # noqa: E402


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
