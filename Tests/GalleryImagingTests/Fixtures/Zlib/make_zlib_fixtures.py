#!/usr/bin/env python3
"""Writes the zlib/deflate fixtures of InflateTests next to this script (python3 standard library only).

payload.bin is deterministic (seeded): English-like text, random bytes, long runs, and repeats at
distances up to 32 KiB, so every block type, length and distance code and both table levels show up.
Each .zlib file is payload.bin compressed by Python's zlib with the settings in its name:
level0...level9, the huffman-only / rle / fixed strategies, a 512-byte window (wbits 9), and a raw
deflate stream (.deflate, wbits -15). Run it again to remake them; the output is byte-for-byte stable
for a given zlib version, and the tests only need the streams to decode to payload.bin.
"""
import os, random, zlib

here = os.path.dirname(os.path.abspath(__file__))
rng = random.Random(20261126)
words = "the of and picture gallery node sync thumbnail every shows peer blob png gif jpeg inflate huffman".split()
parts = []
while sum(map(len, parts)) < 40000:
    kind = rng.randrange(5)
    if kind == 0:
        parts.append(" ".join(rng.choice(words) for _ in range(rng.randrange(5, 60))).encode() + b"\n")
    elif kind == 1:
        parts.append(bytes(rng.randrange(256) for _ in range(rng.randrange(1, 400))))
    elif kind == 2:
        parts.append(bytes([rng.randrange(256)]) * rng.randrange(3, 1000))
    elif kind == 3 and parts:
        joined = b"".join(parts)
        start = max(0, len(joined) - rng.randrange(1, 32768))
        parts.append(joined[start:start + rng.randrange(3, 600)])
    else:
        parts.append(bytes(range(rng.randrange(1, 256))))
payload = b"".join(parts)[:40000]
with open(os.path.join(here, "payload.bin"), "wb") as f:
    f.write(payload)

def write(name, level, wbits=15, strategy=zlib.Z_DEFAULT_STRATEGY):
    c = zlib.compressobj(level, zlib.DEFLATED, wbits, 9, strategy)
    data = c.compress(payload) + c.flush()
    with open(os.path.join(here, name), "wb") as f:
        f.write(data)

for level in range(10):
    write("level%d.zlib" % level, level)
write("huffman-only.zlib", 6, strategy=zlib.Z_HUFFMAN_ONLY)
write("rle.zlib", 6, strategy=zlib.Z_RLE)
write("fixed.zlib", 6, strategy=zlib.Z_FIXED)
write("window512.zlib", 9, wbits=9)
write("raw.deflate", 9, wbits=-15)
