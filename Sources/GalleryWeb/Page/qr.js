// ---- QR codes (ISO/IEC 18004), drawn by the page: the Invite dialog shows its code as one ----
// Byte mode (UTF-8), versions 1 to 10, error correction level M (15 %), or L (7 %) when the text is
// too long for M at version 10. Reed-Solomon over GF(256) (polynomial 0x11D), the blocks interleaved,
// all 8 masks tried and the one with the lowest penalty (rules N1 to N4) kept, format information
// (BCH 15,5) and, from version 7, version information (BCH 18,6). QR.encode gives the modules;
// QR.svg draws them with a 4-module quiet zone and a whole number of CSS pixels per module.

const QR = (() => {
  const LEVELS = { L: { bits: 1, index: 0 }, M: { bits: 0, index: 1 } };
  // Per version 1..10 (index 0 unused): EC codewords per block, and the number of blocks, for L and M.
  const EC_PER_BLOCK = [[0, 7, 10, 15, 20, 26, 18, 20, 24, 30, 18], [0, 10, 16, 26, 18, 24, 16, 18, 22, 22, 26]];
  const BLOCKS = [[0, 1, 1, 1, 1, 1, 2, 2, 2, 2, 4], [0, 1, 1, 1, 2, 2, 4, 4, 4, 5, 5]];
  const MAX_VERSION = 10;

  // GF(256): exponents and logarithms of the generator 2.
  const EXP = new Uint8Array(512);
  const LOG = new Uint8Array(256);
  for (let i = 0, x = 1; i < 255; i++) {
    EXP[i] = x; LOG[x] = i;
    x <<= 1;
    if (x & 0x100) x ^= 0x11D;
  }
  for (let i = 255; i < 512; i++) EXP[i] = EXP[i - 255];
  const multiply = (a, b) => (a && b ? EXP[LOG[a] + LOG[b]] : 0);

  // The generator polynomial (x - 2^0)(x - 2^1)...(x - 2^(degree-1)), highest term first, leading 1 left out.
  function generator(degree) {
    let poly = [1];
    for (let i = 0; i < degree; i++) {
      const next = new Array(poly.length + 1).fill(0);
      for (let j = 0; j < poly.length; j++) {
        next[j] ^= poly[j];
        next[j + 1] ^= multiply(poly[j], EXP[i]);
      }
      poly = next;
    }
    return poly.slice(1);
  }

  // The `degree` error correction codewords of `data`: the remainder of data(x)·x^degree by the generator.
  function reedSolomon(data, degree) {
    const gen = generator(degree);
    const rest = new Array(degree).fill(0);
    for (const byte of data) {
      const factor = byte ^ rest.shift();
      rest.push(0);
      for (let i = 0; i < degree; i++) rest[i] ^= multiply(gen[i], factor);
    }
    return rest;
  }

  // All codeword modules of a version (what is left after the function patterns), in codewords.
  function rawCodewords(version) {
    let modules = (16 * version + 128) * version + 64;
    if (version >= 2) {
      const align = Math.floor(version / 7) + 2;
      modules -= (25 * align - 10) * align - 55;
      if (version >= 7) modules -= 36;
    }
    return Math.floor(modules / 8);
  }

  const dataCodewords = (version, level) =>
    rawCodewords(version) - EC_PER_BLOCK[LEVELS[level].index][version] * BLOCKS[LEVELS[level].index][version];

  // The 15 format bits (level, mask, BCH remainder, XOR 0x5412), bit 14 first.
  function formatBits(level, mask) {
    const data = (LEVELS[level].bits << 3) | mask;
    let rest = data;
    for (let i = 0; i < 10; i++) rest = (rest << 1) ^ ((rest >>> 9) * 0x537);
    return ((data << 10) | rest) ^ 0x5412;
  }

  // The 18 version bits (version, BCH remainder), from version 7.
  function versionBits(version) {
    let rest = version;
    for (let i = 0; i < 12; i++) rest = (rest << 1) ^ ((rest >>> 11) * 0x1F25);
    return (version << 12) | rest;
  }

  // Mode 0100, the byte count, the bytes, a terminator, then 0xEC 0x11 to fill `capacity` codewords.
  function dataCodewordsOf(bytes, version, capacity) {
    const bits = [];
    const put = (value, length) => { for (let i = length - 1; i >= 0; i--) bits.push((value >>> i) & 1); };
    put(0b0100, 4);
    put(bytes.length, version <= 9 ? 8 : 16);
    for (const byte of bytes) put(byte, 8);
    put(0, Math.min(4, capacity * 8 - bits.length));
    put(0, (8 - (bits.length % 8)) % 8);
    const codewords = [];
    for (let i = 0; i < bits.length; i += 8) codewords.push(bits.slice(i, i + 8).reduce((a, b) => (a << 1) | b, 0));
    for (let pad = 0xEC; codewords.length < capacity; pad ^= 0xEC ^ 0x11) codewords.push(pad);
    return codewords;
  }

  // The data split in blocks (the short ones first), each with its EC codewords, interleaved.
  function interleave(data, version, level) {
    const count = BLOCKS[LEVELS[level].index][version];
    const ecLength = EC_PER_BLOCK[LEVELS[level].index][version];
    const raw = rawCodewords(version);
    const shortCount = count - (raw % count);
    const shortLength = Math.floor(raw / count) - ecLength;
    const blocks = [];
    for (let i = 0, at = 0; i < count; i++) {
      const length = shortLength + (i < shortCount ? 0 : 1);
      const block = data.slice(at, at + length);
      at += length;
      blocks.push({ data: block, ec: reedSolomon(block, ecLength) });
    }
    const result = [];
    for (let i = 0; i <= shortLength; i++) for (const b of blocks) if (i < b.data.length) result.push(b.data[i]);
    for (let i = 0; i < ecLength; i++) for (const b of blocks) result.push(b.ec[i]);
    return result;
  }

  const MASKS = [
    (x, y) => (x + y) % 2 === 0,
    (x, y) => y % 2 === 0,
    (x) => x % 3 === 0,
    (x, y) => (x + y) % 3 === 0,
    (x, y) => (Math.floor(x / 3) + Math.floor(y / 2)) % 2 === 0,
    (x, y) => ((x * y) % 2) + ((x * y) % 3) === 0,
    (x, y) => (((x * y) % 2) + ((x * y) % 3)) % 2 === 0,
    (x, y) => (((x + y) % 2) + ((x * y) % 3)) % 2 === 0,
  ];

  // The symbol being built: dark modules and which of them are function patterns, by [y][x].
  function grid(version) {
    const size = version * 4 + 17;
    const dark = Array.from({ length: size }, () => new Array(size).fill(false));
    const fixed = Array.from({ length: size }, () => new Array(size).fill(false));
    const set = (x, y, on) => { dark[y][x] = on; fixed[y][x] = true; };
    for (let i = 0; i < size; i++) { set(6, i, i % 2 === 0); set(i, 6, i % 2 === 0); }   // timing
    const finder = (cx, cy) => {
      for (let dy = -4; dy <= 4; dy++) for (let dx = -4; dx <= 4; dx++) {
        const x = cx + dx, y = cy + dy, ring = Math.max(Math.abs(dx), Math.abs(dy));
        if (x >= 0 && y >= 0 && x < size && y < size) set(x, y, ring !== 2 && ring !== 4);
      }
    };
    finder(3, 3); finder(size - 4, 3); finder(3, size - 4);
    if (version >= 2) {
      const count = Math.floor(version / 7) + 2;
      const step = Math.ceil((version * 4 + 4) / (count * 2 - 2)) * 2;
      const centres = [6];
      for (let at = size - 7; centres.length < count; at -= step) centres.splice(1, 0, at);
      for (const cy of centres) for (const cx of centres) {
        if ((cx === 6 && cy === 6) || (cx === 6 && cy === size - 7) || (cx === size - 7 && cy === 6)) continue;
        for (let dy = -2; dy <= 2; dy++) for (let dx = -2; dx <= 2; dx++) set(cx + dx, cy + dy, Math.max(Math.abs(dx), Math.abs(dy)) !== 1);
      }
    }
    if (version >= 7) {
      const bits = versionBits(version);
      for (let i = 0; i < 18; i++) {
        const on = ((bits >>> i) & 1) === 1, a = size - 11 + (i % 3), b = Math.floor(i / 3);
        set(a, b, on); set(b, a, on);
      }
    }
    return { size, dark, fixed, set };
  }

  // Both copies of the format bits, and the dark module beside the lower-left finder.
  function placeFormat(symbol, level, mask) {
    const { size, set } = symbol;
    const bits = formatBits(level, mask);
    const bit = (i) => ((bits >>> i) & 1) === 1;
    for (let i = 0; i <= 5; i++) set(8, i, bit(i));
    set(8, 7, bit(6)); set(8, 8, bit(7)); set(7, 8, bit(8));
    for (let i = 9; i < 15; i++) set(14 - i, 8, bit(i));
    for (let i = 0; i < 8; i++) set(size - 1 - i, 8, bit(i));
    for (let i = 8; i < 15; i++) set(8, size - 15 + i, bit(i));
    set(8, size - 8, true);
  }

  // The codewords in two-module columns from the bottom right, up and down in turn, around the patterns.
  function placeData(symbol, codewords) {
    const { size, dark, fixed } = symbol;
    let i = 0;
    for (let right = size - 1; right >= 1; right -= 2) {
      if (right === 6) right = 5;
      const upward = ((right + 1) & 2) === 0;
      for (let step = 0; step < size; step++) {
        const y = upward ? size - 1 - step : step;
        for (const x of [right, right - 1]) {
          if (fixed[y][x] || i >= codewords.length * 8) continue;
          dark[y][x] = ((codewords[i >>> 3] >>> (7 - (i & 7))) & 1) === 1;
          i++;
        }
      }
    }
  }

  function applyMask(symbol, mask) {
    const { size, dark, fixed } = symbol;
    for (let y = 0; y < size; y++) for (let x = 0; x < size; x++) {
      if (!fixed[y][x] && MASKS[mask](x, y)) dark[y][x] = !dark[y][x];
    }
  }

  // The penalty of a masked symbol: runs of 5 or more (N1), 2x2 blocks (N2), finder-like 1:1:3:1:1
  // patterns with 4 light modules on a side (N3), and the dark share away from 50 % (N4).
  function penalty({ size, dark }) {
    let score = 0, darkCount = 0;
    const finderLike = [[1, 0, 1, 1, 1, 0, 1, 0, 0, 0, 0], [0, 0, 0, 0, 1, 0, 1, 1, 1, 0, 1]];
    for (let pass = 0; pass < 2; pass++) {
      const at = pass === 0 ? (a, b) => dark[a][b] : (a, b) => dark[b][a];
      for (let a = 0; a < size; a++) {
        let run = 1;
        for (let b = 0; b < size; b++) {
          if (b > 0 && at(a, b) === at(a, b - 1)) run++;
          else run = 1;
          if (run === 5) score += 3; else if (run > 5) score += 1;
          if (b + 11 <= size && finderLike.some((p) => p.every((v, k) => (v === 1) === at(a, b + k)))) score += 40;
        }
      }
    }
    for (let y = 0; y < size; y++) for (let x = 0; x < size; x++) {
      if (dark[y][x]) darkCount++;
      if (x + 1 < size && y + 1 < size && dark[y][x] === dark[y][x + 1] && dark[y][x] === dark[y + 1][x] && dark[y][x] === dark[y + 1][x + 1]) score += 3;
    }
    return score + Math.floor(Math.abs(darkCount * 20 - size * size * 10) / (size * size)) * 10;
  }

  // `text` as a QR symbol: {version, level, mask, size, modules[y][x] (true = dark)}. `options.mask`
  // (0-7) forces a mask and `options.level` ('L' or 'M') a level; otherwise the best are chosen.
  function encode(text, options = {}) {
    const bytes = [...new TextEncoder().encode(text)];
    let version = 0, level = null;
    for (const candidate of options.level ? [options.level] : ['M', 'L']) {
      for (let v = 1; v <= MAX_VERSION && !version; v++) {
        if (4 + (v <= 9 ? 8 : 16) + bytes.length * 8 <= dataCodewords(v, candidate) * 8) { version = v; level = candidate; }
      }
      if (version) break;
    }
    if (!version) throw new Error(`Too long for a QR code here: ${bytes.length} bytes`);
    const codewords = interleave(dataCodewordsOf(bytes, version, dataCodewords(version, level)), version, level);
    const symbol = grid(version);
    placeFormat(symbol, level, 0);          // reserve the format modules before the data goes in
    placeData(symbol, codewords);
    let mask = options.mask;
    if (mask === undefined) {
      let best = Infinity;
      for (let m = 0; m < 8; m++) {
        applyMask(symbol, m);
        placeFormat(symbol, level, m);
        const score = penalty(symbol);
        if (score < best) { best = score; mask = m; }
        applyMask(symbol, m);                // XOR again: undone
      }
    }
    applyMask(symbol, mask);
    placeFormat(symbol, level, mask);
    return { version, level, mask, size: symbol.size, modules: symbol.dark };
  }

  // An <svg> of `symbol`: one path of dark squares on white, a 4-module quiet zone, `module` CSS px each.
  function svg(symbol, module) {
    const NS = 'http://www.w3.org/2000/svg';
    const side = symbol.size + 8;
    const root = document.createElementNS(NS, 'svg');
    root.setAttribute('viewBox', `0 0 ${side} ${side}`);
    root.setAttribute('width', String(side * module));
    root.setAttribute('height', String(side * module));
    root.setAttribute('shape-rendering', 'crispEdges');
    const ground = document.createElementNS(NS, 'rect');
    ground.setAttribute('width', String(side));
    ground.setAttribute('height', String(side));
    ground.setAttribute('fill', '#fff');
    let d = '';
    symbol.modules.forEach((row, y) => row.forEach((on, x) => { if (on) d += `M${x + 4} ${y + 4}h1v1h-1z`; }));
    const path = document.createElementNS(NS, 'path');
    path.setAttribute('d', d);
    path.setAttribute('fill', '#000');
    root.append(ground, path);
    return root;
  }

  return { encode, svg, reedSolomon, formatBits, versionBits, dataCodewords };
})();
