"""The node's command line (`gallery -C DIR ...`): running it, comparing its `list --json` with the
model, reading its `status --json` vector, polling, and PNG files to add through it."""

import json
import os
import subprocess
import time

from .checking import Mismatch, check


def node_listing(cli):
    listing = cli.json("list", "--json")
    out = {}
    for gallery in listing["galleries"]:
        out[gallery["gallery"]] = [(i["id"], i["title"], i["state"], i["url"], i["aspectRatio"], i["hash"], i["bytes"], i["mediaType"])
                                   for i in gallery["items"]]
    return out


def compare_listings(model, cli, context):
    expected, actual = model.listing(), node_listing(cli)
    check(set(expected) == set(actual), f"{context}: galleries {sorted(actual)}, expected {sorted(expected)}")
    for name in expected:
        check(expected[name] == actual[name], f"{context}: gallery {name!r} on the node is\n  {actual[name]}\nexpected\n  {expected[name]}")


class Cli:
    def __init__(self, binary, directory):
        self.binary, self.directory = binary, directory

    def __call__(self, *arguments, ok=True):
        result = subprocess.run([self.binary, "-C", self.directory, *arguments], capture_output=True, text=True, timeout=30)
        if ok:
            check(result.returncode == 0, f"gallery {' '.join(arguments)} exited {result.returncode}: {result.stderr.strip()}")
        return result

    def lines(self, *arguments):
        return self(*arguments).stdout.split()

    def json(self, *arguments):
        return json.loads(self(*arguments).stdout)


def poll(condition, timeout, what):
    deadline = time.time() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.time() >= deadline:
            raise Mismatch(f"timed out after {timeout} s waiting for {what}")
        time.sleep(0.05)


def vv_from_status(status):
    return {int(replica, 16): counter for replica, counter in status["version"].items()}


def make_png(directory, size, seed):
    import random
    rng = random.Random(seed)
    png = bytes([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13]) + b"IHDR"
    png += bytes([0, 0, 2, 0x80, 0, 0, 1, 0xE0, 8, 2, 0, 0, 0, 0, 0, 0, 0])
    png += bytes(rng.getrandbits(8) for _ in range(size - len(png)))
    path = os.path.join(directory, f"image-{seed}.png")
    with open(path, "wb") as f:
        f.write(png)
    return path, png
