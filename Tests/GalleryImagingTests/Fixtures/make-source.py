import numpy as np, sys
def make(w, h, seed):
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:h, 0:w].astype(np.float64)
    img = np.zeros((h, w, 3))
    # smooth colour fields: low-frequency noise upsampled (like sky, skin, foliage)
    for c in range(3):
        for scale in (8, 32, 96):
            gh, gw = h // scale + 2, w // scale + 2
            g = rng.random((gh, gw))
            yi = y / scale; xi = x / scale
            y0 = yi.astype(int); x0 = xi.astype(int); fy = yi - y0; fx = xi - x0
            fy = fy*fy*(3-2*fy); fx = fx*fx*(3-2*fx)
            v = (g[y0, x0]*(1-fx)*(1-fy) + g[y0, x0+1]*fx*(1-fy) + g[y0+1, x0]*(1-fx)*fy + g[y0+1, x0+1]*fx*fy)
            img[..., c] += v * (scale / 96.0 + 0.3)
    img = img / img.max() * 230
    # hard edges: discs and bars of saturated colour
    for _ in range(12):
        cx, cy, r = rng.random() * w, rng.random() * h, rng.random() * min(w, h) / 6 + 4
        col = rng.random(3) * 255
        m = (x - cx) ** 2 + (y - cy) ** 2 < r * r
        img[m] = img[m] * 0.3 + col * 0.7
    img[(x // 3 % 2 == 0) & (y > h * 0.8)] *= 0.6   # fine stripes
    img += rng.normal(0, 4, img.shape)             # sensor noise
    return np.clip(img, 0, 255).astype(np.uint8)
w, h, seed, out = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
a = make(w, h, seed)
with open(out, 'wb') as f:
    f.write(b'P6\n%d %d\n255\n' % (w, h)); f.write(a.tobytes())
