#!/usr/bin/env python3
"""Writes the PNG fixtures of PNGDecoderTests next to this script (python3 standard library only).

PngSuite-style coverage, made here rather than copied: every color type and allowed bit depth, plain
and Adam7-interlaced, at sizes that leave Adam7 passes partial or empty; rows cycling through all
five filters; tRNS for palette (partial alpha table), gray (a key at each depth) and RGB (8 and
16 bit, keys that differ from other pixels only in the low byte); image data split over many IDAT
chunks, some empty; zlib levels 0-9. No gAMA, cHRM, sRGB or iCCP chunks, so Chromium shows the
file's own samples and the comparisons can be exact. Seeded: the same files every run.
"""
import os, random, struct, zlib

here = os.path.dirname(os.path.abspath(__file__))
rng = random.Random(1951)

def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}
ADAM7 = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]

def pack_row(samples, depth):
    if depth == 8:
        return bytes(samples)
    if depth == 16:
        return b"".join(struct.pack(">H", s) for s in samples)
    out, acc, bits = bytearray(), 0, 0
    for s in samples:
        acc = acc << depth | s
        bits += depth
        if bits == 8:
            out.append(acc); acc, bits = 0, 0
    if bits:
        out.append(acc << (8 - bits))
    return bytes(out)

def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else (b if pb <= pc else c)

def filter_row(kind, row, prev, bpp):
    out = bytearray()
    for i, x in enumerate(row):
        a = row[i - bpp] if i >= bpp else 0
        b = prev[i]
        c = prev[i - bpp] if i >= bpp else 0
        pred = [0, a, b, (a + b) // 2, paeth(a, b, c)][kind]
        out.append((x - pred) & 0xFF)
    return bytes([kind]) + bytes(out)

def scanlines(width, height, pixels, ctype, depth, interlace, filter_offset):
    """pixels[y][x] is a tuple of samples. Returns the filtered data of every pass."""
    channels = CHANNELS[ctype]
    bpp = max(1, channels * depth // 8)
    passes = ADAM7 if interlace else [(0, 0, 1, 1)]
    data, n = bytearray(), filter_offset
    for xs, ys, dx, dy in passes:
        cols = list(range(xs, width, dx))
        rows = list(range(ys, height, dy))
        if not cols or not rows:
            continue
        prev = bytes(len(pack_row([0] * (len(cols) * channels), depth)))
        for y in rows:
            row = pack_row([s for x in cols for s in pixels[y][x]], depth)
            data += filter_row(n % 5, row, prev, bpp)
            n += 1
            prev = row
    return bytes(data)

def write(name, width, height, ctype, depth, pixels, interlace=False, palette=None, trns=None, level=6,
          idat_split=None, extra=b""):
    raw = scanlines(width, height, pixels, ctype, depth, interlace, rng.randrange(5))
    compressed = zlib.compress(raw, level)
    body = chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, depth, ctype, 0, 0, 1 if interlace else 0))
    if palette is not None:
        body += chunk(b"PLTE", bytes(v for rgb in palette for v in rgb))
    if trns is not None:
        body += chunk(b"tRNS", trns)
    body += extra
    if idat_split:
        pieces, position = [], 0
        while position < len(compressed):
            size = rng.choice([0, 1, 2, 7, idat_split])
            pieces.append(compressed[position:position + size]); position += size
        for piece in pieces:
            body += chunk(b"IDAT", piece)
    else:
        body += chunk(b"IDAT", compressed)
    with open(os.path.join(here, name), "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + body + chunk(b"IEND", b""))

def random_pixels(width, height, channels, depth, special=()):
    top = (1 << depth) - 1
    def value():
        if depth == 16 and rng.random() < 0.3:
            return rng.choice([0x12FF, 0x1280, 0x127F, 0xFF80, 0x00FF, 0xFFFF, 0x0100])
        return rng.randrange(top + 1)
    pixels = [[tuple(value() for _ in range(channels)) for _ in range(width)] for _ in range(height)]
    for (x, y), px in special:
        pixels[y][x] = px
    return pixels

sizes = [(13, 11), (1, 1), (3, 2), (9, 17)]
for ctype, depths, label in [(0, [1, 2, 4, 8, 16], "gray"), (2, [8, 16], "rgb"), (3, [1, 2, 4, 8], "palette"),
                             (4, [8, 16], "grayalpha"), (6, [8, 16], "rgba")]:
    for depth in depths:
        for interlace in (False, True):
            for index, (w, h) in enumerate(sizes):
                if index > 0 and not interlace and depth not in (1, 8):
                    continue  # The odd sizes matter most for Adam7 and packed rows.
                palette = None
                if ctype == 3:
                    count = 1 << depth
                    palette = [tuple(rng.randrange(256) for _ in range(3)) for _ in range(count)]
                pixels = random_pixels(w, h, CHANNELS[ctype], depth)
                suffix = ("-i" if interlace else "") + ("" if index == 0 else "-%dx%d" % (w, h))
                write("%s%d%s.png" % (label, depth, suffix), w, h, ctype, depth, pixels, interlace, palette,
                      level=rng.randrange(10))

# tRNS: palette (alpha for the first entries only), gray keys at every depth, RGB keys.
for depth in [1, 2, 4, 8]:
    count = 1 << depth
    palette = [tuple(rng.randrange(256) for _ in range(3)) for _ in range(count)]
    alphas = bytes(rng.choice([0, 1, 128, 254, 255]) for _ in range(max(1, count * 2 // 3)))
    pixels = random_pixels(13, 11, 1, depth)
    for interlace in (False, True):
        write("palette%d-trns%s.png" % (depth, "-i" if interlace else ""), 13, 11, 3, depth,
              pixels, interlace, palette, trns=alphas)
for depth in [1, 2, 4, 8, 16]:
    key = (1 << depth) - 2 if depth > 1 else 1
    pixels = random_pixels(13, 11, 1, depth, special=[((0, 0), (key,)), ((5, 5), (key,))])
    if depth == 16:
        pixels[1][1] = (key ^ 1,)  # Same high byte, not the key: stays opaque.
    write("gray%d-trns.png" % depth, 13, 11, 0, depth, pixels, trns=struct.pack(">H", key))
    write("gray%d-trns-i.png" % depth, 13, 11, 0, depth, pixels, True, trns=struct.pack(">H", key))
for depth in [8, 16]:
    key = (10, 20, 30) if depth == 8 else (0x1234, 0x5678, 0x9ABC)
    pixels = random_pixels(13, 11, 3, depth, special=[((2, 3), key), ((7, 7), key)])
    if depth == 16:
        pixels[4][4] = (key[0], key[1], key[2] ^ 0x01)
    write("rgb%d-trns.png" % depth, 13, 11, 2, depth, pixels, trns=struct.pack(">HHH", *key))
    write("rgb%d-trns-i.png" % depth, 13, 11, 2, depth, pixels, True, trns=struct.pack(">HHH", *key))

# Many IDAT chunks (some empty), every zlib level, and a larger photo-like image.
for level in range(10):
    write("rgba8-level%d-idats.png" % level, 31, 7, 6, 8, random_pixels(31, 7, 4, 8), level=level, idat_split=50)
gradient = [[((x * 2 + y) & 255, (y * 3) & 255, (x ^ y) & 255) for x in range(120)] for y in range(90)]
write("rgb8-gradient.png", 120, 90, 2, 8, gradient)
write("rgb8-gradient-i.png", 120, 90, 2, 8, gradient, True)
# An ancillary chunk we ignore (tEXt) before the data.
write("gray8-text.png", 13, 11, 0, 8, random_pixels(13, 11, 1, 8),
      extra=chunk(b"tEXt", b"Comment\x00made for GallerySync's tests"))
# Palette indices past the end of a short palette (Chromium 156 reads the last entry), without and
# with a tRNS that gives the last entry an alpha.
short = [(200, 10, 10), (10, 200, 10), (10, 10, 200)]
indices = [[(x * 37 % 256,) for x in range(8)], [(x,) for x in range(8)]]
write("palette8-outofrange.png", 8, 2, 3, 8, indices, palette=short)
write("palette8-outofrange-trns.png", 8, 2, 3, 8, indices, palette=short, trns=bytes([255, 128, 77]))
write("palette4-outofrange-trns-i.png", 8, 2, 3, 4, [[(x,) for x in range(8)], [(15 - x,) for x in range(8)]],
      True, palette=short, trns=bytes([0, 128]))
