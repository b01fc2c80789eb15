#!/usr/bin/env python3
"""Writes the GIF fixtures of GIFDecoderTests next to this script (python3 standard library only).

A small LZW encoder of our own: GIF87a and GIF89a, global and local color tables of every size
(2...256 entries), minimum code sizes 2...8, code-size growth to 12 bits with deferred clear and
with early clears, interlaced frames, a graphic control extension with a transparent index, frames
offset inside the logical screen (the rest of the canvas is transparent), animated files (only the
first frame counts), other extensions to skip, and odd sub-block sizes. Seeded: the same files
every run.
"""
import os, random, struct

here = os.path.dirname(os.path.abspath(__file__))
rng = random.Random(1987)

def lzw(indices, min_size, clear_every=None):
    clear, end = 1 << min_size, (1 << min_size) + 1
    out, acc, nbits = bytearray(), 0, 0
    def emit(code, size):
        nonlocal acc, nbits
        acc |= code << nbits
        nbits += size
        while nbits >= 8:
            out.append(acc & 0xFF); acc >>= 8; nbits -= 8
    size = min_size + 1
    table = {bytes([i]): i for i in range(clear)}
    next_code = end + 1
    emit(clear, size)
    current = b""
    emitted = 0
    for index in indices:
        candidate = current + bytes([index])
        if candidate in table:
            current = candidate
            continue
        emit(table[current], size)
        emitted += 1
        if next_code < 4096:
            table[candidate] = next_code
            next_code += 1
            if next_code - 1 == (1 << size) and size < 12:
                size += 1
        if clear_every and emitted % clear_every == 0:
            emit(clear, size)
            size = min_size + 1
            table = {bytes([i]): i for i in range(clear)}
            next_code = end + 1
        current = bytes([index])
    if current:
        emit(table[current], size)
    emit(end, size)
    if nbits:
        out.append(acc & 0xFF)
    return bytes(out)

def sub_blocks(data, size=255):
    out = bytearray()
    for i in range(0, len(data), size):
        piece = data[i:i + size]
        out += bytes([len(piece)]) + piece
    return bytes(out + b"\0")

def table_bits(count):
    bits = 1
    while (1 << bits) < count:
        bits += 1
    return bits

def color_table(count):
    return [tuple(rng.randrange(256) for _ in range(3)) for _ in range(count)]

def interlace_rows(height):
    return list(range(0, height, 8)) + list(range(4, height, 8)) + list(range(2, height, 4)) + list(range(1, height, 2))

def frame(width, height, left=0, top=0, colors=None, indices=None, interlaced=False, min_size=None,
          gce=None, block=255, clear_every=None):
    """An image (with its graphic control extension first when `gce` is (transparent index or None, disposal))."""
    out = bytearray()
    if gce is not None:
        transparent, disposal = gce
        flags = disposal << 2 | (1 if transparent is not None else 0)
        out += b"\x21\xF9\x04" + bytes([flags]) + struct.pack("<H", 10) + bytes([transparent or 0]) + b"\0"
    flags = 0
    if colors is not None:
        flags |= 0x80 | (table_bits(len(colors)) - 1)
    if interlaced:
        flags |= 0x40
    out += b"\x2C" + struct.pack("<HHHH", left, top, width, height) + bytes([flags])
    if colors is not None:
        padded = colors + [(0, 0, 0)] * ((1 << table_bits(len(colors))) - len(colors))
        out += bytes(v for c in padded for v in c)
    rows = [indices[y * width:(y + 1) * width] for y in range(height)]
    order = interlace_rows(height) if interlaced else range(height)
    stream = [i for y in order for i in rows[y]]
    size = min_size or max(2, table_bits(max(indices) + 1))
    out += bytes([size]) + sub_blocks(lzw(stream, size, clear_every), block)
    return bytes(out)

def gif(name, width, height, frames, global_colors=None, version=b"89a", background=0, extensions=b""):
    flags = 0
    table = b""
    if global_colors is not None:
        bits = table_bits(len(global_colors))
        flags = 0x80 | 0x70 | (bits - 1)
        padded = global_colors + [(0, 0, 0)] * ((1 << bits) - len(global_colors))
        table = bytes(v for c in padded for v in c)
    data = b"GIF" + version + struct.pack("<HH", width, height) + bytes([flags, background, 0]) + table
    data += extensions + b"".join(frames) + b"\x3B"
    with open(os.path.join(here, name), "wb") as f:
        f.write(data)

def noise(count, colors):
    return [rng.randrange(colors) for _ in range(count)]

def smooth(width, height, colors):
    return [((x // 3 + y // 2) % colors) for y in range(height) for x in range(width)]

# Every table size (2...256 colors) as a global table, plain and interlaced.
for bits in range(1, 9):
    count = 1 << bits
    w, h = 17, 13
    for interlaced in (False, True):
        gif("global%d%s.gif" % (count, "-i" if interlaced else ""), w, h,
            [frame(w, h, indices=noise(w * h, count), interlaced=interlaced)], global_colors=color_table(count))
# GIF87a, and a local table that overrides the global one.
gif("gif87a.gif", 10, 9, [frame(10, 9, indices=smooth(10, 9, 4))], global_colors=color_table(4), version=b"87a")
gif("local-table.gif", 12, 12, [frame(12, 12, colors=color_table(32), indices=noise(144, 32))], global_colors=color_table(4))
gif("local-only.gif", 12, 12, [frame(12, 12, colors=color_table(16), indices=noise(144, 16), interlaced=True)])
# Code sizes growing to 12 bits and the table filling (deferred clear), and encoders that clear often.
gif("large-noise.gif", 160, 120, [frame(160, 120, indices=noise(160 * 120, 256))], global_colors=color_table(256))
gif("large-smooth.gif", 200, 150, [frame(200, 150, indices=smooth(200, 150, 64))], global_colors=color_table(64))
gif("early-clears.gif", 40, 30, [frame(40, 30, indices=noise(1200, 16), clear_every=37)], global_colors=color_table(16))
# A minimum code size larger than the table needs, and tiny sub-blocks.
gif("wide-codes.gif", 9, 7, [frame(9, 7, indices=noise(63, 4), min_size=8, block=3)], global_colors=color_table(4))
# Transparency: a transparent index in the graphic control extension.
gif("transparent.gif", 16, 16, [frame(16, 16, indices=noise(256, 8), gce=(3, 0))], global_colors=color_table(8))
gif("transparent-i.gif", 16, 19, [frame(16, 19, indices=noise(16 * 19, 8), interlaced=True, gce=(0, 2))],
    global_colors=color_table(8))
# A frame smaller than the screen, offset inside it: the rest of the canvas is transparent.
gif("offset-frame.gif", 20, 15, [frame(8, 6, left=5, top=4, indices=noise(48, 4), gce=(None, 1))], global_colors=color_table(4))
# Animated: only the first frame counts.
gif("animated.gif", 10, 10, [frame(10, 10, indices=noise(100, 4), gce=(None, 1)),
                             frame(10, 10, indices=noise(100, 4), gce=(1, 1)),
                             frame(4, 4, left=3, top=3, indices=noise(16, 4), gce=(None, 0))],
    global_colors=color_table(4),
    extensions=b"\x21\xFF\x0BNETSCAPE2.0\x03\x01\x00\x00\x00")
# Extensions to skip before the image: a comment and a plain-text-like application block.
gif("extensions.gif", 7, 5, [frame(7, 5, indices=noise(35, 2))], global_colors=color_table(2),
    extensions=b"\x21\xFE" + sub_blocks(b"made for GallerySync's tests", 5)
    + b"\x21\xFF\x0BXMP DataXMP" + sub_blocks(bytes(range(40)), 11))
# Indices past a short color table (the table holds 8 entries, the data uses up to 15).
gif("outofrange-index.gif", 8, 4, [frame(8, 4, indices=noise(32, 16), min_size=4)], global_colors=color_table(5))
# A first frame reaching past the logical screen, and a screen of zero size.
gif("frame-beyond-screen.gif", 10, 10, [frame(12, 8, left=4, top=4, indices=noise(96, 4))], global_colors=color_table(4))
gif("zero-screen.gif", 0, 0, [frame(6, 5, left=1, top=2, indices=noise(30, 4))], global_colors=color_table(4))
# No color table at all.
gif("no-color-table.gif", 6, 5, [frame(6, 5, indices=noise(30, 4))])
