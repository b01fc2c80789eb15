// ---- The grid: tiles that keep each image's aspect ratio ----

function blobURL(item) {
  if (item.hash) return `/blobs/${item.hash}`;
  if (item.url && /^https?:/i.test(item.url)) return item.url;
  return null;
}

// The thumbnail a tile shows, never the original: 320 px on the long edge when that covers the
// tile's long edge in device pixels (with a tenth to spare), 1280 px otherwise. The tile's size is
// the layout's (the zoom's height, the aspect ratio's width, at most the grid's width).
const THUMBNAIL_SIZES = [320, 1280];
function thumbnailURL(item) {
  if (!item.hash) return blobURL(item);
  // The layout's width, not clientWidth: reading that after a tile was inserted forces a layout per tile.
  const width = Math.min(L.width || Math.max(120, $('grid').clientWidth), Math.round(L.h * aspectOf(item)));
  const needed = Math.max(width, L.h) * (window.devicePixelRatio || 1);
  const size = THUMBNAIL_SIZES.find((s) => s * 1.1 >= needed) || THUMBNAIL_SIZES[THUMBNAIL_SIZES.length - 1];
  return `/thumbnails/${item.hash}/${size}`;
}

// The size of a /thumbnails/HASH/SIZE URL (0 for any other).
function thumbnailSizeOf(source) {
  const match = /^\/thumbnails\/[0-9a-f]{64}\/(\d+)$/.exec(source || '');
  return match ? Number(match[1]) : 0;
}

function aspectOf(item) {
  const ratio = Number(item.aspectRatio) || localAspect(item);
  return ratio > 0.05 && ratio < 20 ? ratio : 1;
}

function makeTile(item) {
  const tile = el('div', 'tile');
  tile.dataset.id = item.id;
  tile.setAttribute('role', 'option');
  tile.tabIndex = -1;
  tile.draggable = true;
  tile.appendChild(el('div', 'frame'));
  tile.appendChild(el('div', 'caption'));
  fillTile(tile, item);
  return tile;
}

// (Re)draws a tile for `item`: an image, or a placeholder with a progress ring and a cancel button.
function fillTile(tile, item) {
  const placeholder = item.state === 'placeholder';
  tile.classList.toggle('placeholder', placeholder);
  tile.classList.toggle('selected', S.selected.has(item.id));
  tile.setAttribute('aria-selected', String(S.selected.has(item.id)));
  tile.style.setProperty('--a', aspectOf(item));
  const title = item.title == null ? '' : String(item.title);
  tile.querySelector('.caption').textContent = title;
  tile.setAttribute('aria-label', (title || 'untitled') + (placeholder ? ', loading' : ''));
  tile.title = title;
  const frame = tile.querySelector('.frame');
  if (placeholder) {
    if (!frame.querySelector('.ring')) frame.replaceChildren(makeRing(item), makeCancel(item));
    setProgress(tile, item.progress);
    return;
  }
  showThumbnail(frame, item);
}

// Puts the tile's thumbnail in `frame`, unless it shows that one or a larger one of the same item
// already (zooming out keeps the larger, cached image). Decoded off the main thread, loaded only
// when near the viewport.
function showThumbnail(frame, item) {
  frame.parentElement.dataset.h = String(L.h);
  const source = thumbnailURL(item);
  const current = frame.querySelector('img');
  if (current && current.dataset.src === source) return;
  const sameItem = current && item.hash && current.dataset.src.startsWith(`/thumbnails/${item.hash}/`);
  if (sameItem && thumbnailSizeOf(current.dataset.src) > thumbnailSizeOf(source)) return;
  if (!source) { frame.replaceChildren(el('div', 'missing', 'no image')); return; }
  const image = document.createElement('img');
  image.loading = sameItem ? 'eager' : 'lazy';
  image.decoding = 'async';
  image.alt = '';
  image.draggable = false;
  image.dataset.src = source;
  image.referrerPolicy = 'no-referrer';
  if (!sameItem) image.addEventListener('error', () => explainMissing(frame, image, source), { once: true });
  image.src = source;
  // A larger thumbnail of the same picture replaces the smaller one once it has loaded.
  if (sameItem) image.addEventListener('load', () => { if (current.isConnected) frame.replaceChildren(image); }, { once: true });
  else frame.replaceChildren(image);
}

// An image that did not load: the node says why (e.g. no connected peer holds its bytes) in a JSON
// refusal, shown on the tile in place of a broken image. Bytes that arrived meanwhile are shown.
async function explainMissing(frame, image, source) {
  const missing = el('div', 'missing', 'image unavailable');
  frame.replaceChildren(missing);
  if (!source.startsWith('/')) return;
  try {
    const response = await fetch(source, { credentials: 'same-origin' });
    if (response.ok) {
      image.addEventListener('load', () => { if (missing.isConnected) frame.replaceChildren(image); }, { once: true });
      image.src = source;
      return;
    }
    const reply = await response.json();
    if (reply && reply.message) missing.textContent = reply.message;
  } catch (_) { /* the generic text stays */ }
}

function makeRing(item) {
  const ns = 'http://www.w3.org/2000/svg';
  const box = el('div', 'ring');
  const svg = document.createElementNS(ns, 'svg');
  svg.setAttribute('viewBox', '0 0 44 44');
  svg.setAttribute('aria-hidden', 'true');
  for (const name of ['track', 'bar']) {
    const circle = document.createElementNS(ns, 'circle');
    circle.setAttribute('class', name);
    circle.setAttribute('cx', '22'); circle.setAttribute('cy', '22'); circle.setAttribute('r', '18');
    circle.setAttribute('pathLength', '100');
    svg.appendChild(circle);
  }
  box.appendChild(svg);
  const label = el('div', 'percent', '');
  box.appendChild(label);
  box.setAttribute('role', 'progressbar');
  box.setAttribute('aria-valuemin', '0');
  box.setAttribute('aria-valuemax', '100');
  box.setAttribute('aria-label', `Loading ${item.title || 'item'}`);
  return box;
}

function makeCancel(item) {
  const button = el('button', 'cancel', '×');
  button.type = 'button';
  button.setAttribute('aria-label', `Cancel ${item.title || 'transfer'}`);
  button.addEventListener('click', (e) => { e.stopPropagation(); cancelPlaceholder(item.id); });
  return button;
}

// progress: {done, total} or null (waiting: an indeterminate, slowly turning ring).
function setProgress(tile, progress) {
  const ring = tile.querySelector('.ring');
  if (!ring) return;
  const known = progress && progress.total > 0;
  const percent = known ? Math.min(100, Math.floor(progress.done * 100 / progress.total)) : 0;
  ring.classList.toggle('waiting', !known);
  ring.querySelector('.bar').style.strokeDasharray = `${known ? percent : 25} 100`;
  ring.querySelector('.percent').textContent = known ? `${percent}%` : '';
  ring.setAttribute('aria-valuenow', String(percent));
  tile.dataset.progress = String(percent);
}

async function cancelPlaceholder(id) {
  const upload = S.uploads.get(id);
  try {
    if (upload) {
      upload.controller.abort();
      S.uploads.delete(id);
      await api('DELETE', `/api/uploads/${encodeURIComponent(upload.upload)}`);
    } else {
      await api('POST', '/api/transfers/cancel', { transfer: id });
    }
  } catch (error) {
    toast(`Cannot cancel: ${error.message}`, 'error');
  }
}

// The grid is virtual: the layout of every tile is computed here (rows of the zoom's height, each
// tile as wide as its aspect ratio asks), and only the tiles near the viewport exist in the DOM, in
// gallery order. 10,000 items cost a few milliseconds of arithmetic, not 10,000 elements.
// A phone's grid is Google Photos' density: thin gaps and no caption under the tiles (the title is
// the tile's label and tooltip); a desktop's keeps wide gaps and captions.
const NARROW = window.matchMedia('(max-width: 720px)');
let GAP = 14;          // between tiles, both ways (4 on a phone)
let CAPTION = 24;      // the caption under the image, with its gap (none on a phone)
const OVERSCAN = 900;  // pixels rendered above and below the viewport
// L.items: what is laid out, the gallery or a view of it (view.js); layout indices count in it.
// L.auto: nobody picked a zoom in this browser yet (slider, ctrl+wheel, pinch): the screen's default.
const L = { items: [], xs: [], ys: [], ws: [], rows: [], h: 160, auto: true, height: 0, width: 0 };

const ZOOM = { min: 56, max: 480, desktop: 160, phoneColumns: 4 };
function clampZoom(height) { return Math.max(ZOOM.min, Math.min(ZOOM.max, Math.round(height))); }

// The zoom a screen starts at: 160 px on a desktop. On a phone, Google Photos' density: of the tile
// heights that put 3 to 4.5 tiles a row (over the gallery's first 60 pictures, as they are shaped),
// the one whose rows fill the width best, 4 a row preferred (a ragged right edge looks broken).
function defaultZoom(width, items) {
  if (!NARROW.matches) return ZOOM.desktop;
  const ratios = items.slice(0, 60).map(aspectOf);
  if (!ratios.length) return 88;
  let best = null;
  for (let h = ZOOM.min; h <= 200; h++) {
    const rows = [];   // [tiles, width used]
    let x = 0, n = 0;
    for (let i = 0; i < ratios.length; i++) {
      const w = Math.min(width, Math.round(h * ratios[i]));
      if (i > 0 && x + w > width) { rows.push([n, x - GAP]); x = 0; n = 0; }
      x += w + GAP; n += 1;
    }
    if (!rows.length) rows.push([n, x - GAP]);   // all in one row: count it
    const perRow = rows.reduce((sum, row) => sum + row[0], 0) / rows.length;
    if (perRow < 3 || perRow > 4.5) continue;
    const fill = rows.reduce((sum, row) => sum + row[1], 0) / (rows.length * width);
    const score = fill - 0.03 * Math.abs(perRow - 4);
    if (!best || score > best.score) best = { h, score };
  }
  return best ? best.h : clampZoom((width - 3 * GAP) / (4 * ratios.reduce((sum, ratio) => sum + ratio, 0) / ratios.length));
}

function layout() {
  const width = L.width = Math.max(120, $('grid').clientWidth);
  const items = L.items = shownItems();
  GAP = NARROW.matches ? 4 : 14;
  CAPTION = NARROW.matches ? 0 : 24;
  if (L.auto) showZoom(defaultZoom(width, items));
  const h = L.h;
  L.xs = new Array(items.length); L.ys = new Array(items.length); L.ws = new Array(items.length);
  L.rows = [];
  let x = 0, y = 0;
  for (let i = 0; i < items.length; i++) {
    const w = Math.min(width, Math.round(h * aspectOf(items[i])));
    if (i === 0 || x + w > width) {
      if (i > 0) y += h + CAPTION + GAP;
      x = 0;
      L.rows.push(i);
    }
    L.xs[i] = x; L.ys[i] = y; L.ws[i] = w;
    x += w + GAP;
  }
  L.height = items.length ? y + h + CAPTION : 0;
  $('grid').style.height = `${L.height}px`;
}

// The row holding grid coordinate y (0 when above, the last when below).
function rowAt(y) {
  let low = 0, high = L.rows.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if (L.ys[L.rows[mid]] <= y) low = mid; else high = mid - 1;
  }
  return Math.max(0, low);
}

function rowEnd(row) { return row + 1 < L.rows.length ? L.rows[row + 1] : L.items.length; }

// Renders the tiles near the viewport (and the focused one), in gallery order; returns the new ones.
function renderWindow() {
  const grid = $('grid'), scroller = $('scroller');
  const fresh = new Set();
  const wanted = [];
  if (L.items.length) {
    const top = scroller.scrollTop - grid.offsetTop - OVERSCAN;
    const bottom = scroller.scrollTop - grid.offsetTop + scroller.clientHeight + OVERSCAN;
    const from = L.rows[rowAt(top)], to = rowEnd(rowAt(bottom));
    for (let i = from; i < to; i++) wanted.push(i);
    const focused = S.focusId ? indexOfId(S.focusId) : -1;
    if (focused >= 0 && (focused < from || focused >= to)) wanted.push(focused);
    wanted.sort((a, b) => a - b);
  }
  const keep = new Set(wanted.map((i) => L.items[i].id));
  for (const [id, tile] of S.tiles) {
    if (!keep.has(id)) { tile.remove(); S.tiles.delete(id); }
  }
  let previous = null;
  for (const i of wanted) {
    const item = L.items[i];
    let tile = S.tiles.get(item.id);
    if (!tile) { tile = makeTile(item); S.tiles.set(item.id, tile); fresh.add(item.id); }
    else if (tile.dataset.h !== String(L.h) && item.state !== 'placeholder') showThumbnail(tile.querySelector('.frame'), item);
    // Written only when changed: a scrolled frame then touches the style of its new tiles alone.
    const place = `${L.xs[i]} ${L.ys[i]} ${L.ws[i]}`;
    if (tile.dataset.place !== place) {
      tile.dataset.place = place;
      tile.style.left = `${L.xs[i]}px`;
      tile.style.top = `${L.ys[i]}px`;
      tile.style.width = `${L.ws[i]}px`;
    }
    // Keep the DOM in gallery order (screen readers and tests read it so), moving only what is out of place.
    const expected = previous ? previous.nextElementSibling : grid.firstElementChild;
    if (expected !== tile) grid.insertBefore(tile, expected);
    previous = tile;
  }
  return fresh;
}

function renderGrid() {
  S.tiles = new Map();
  $('grid').replaceChildren();
  layout();
  renderWindow();
  $('gallery-title').textContent = S.gallery || '';
  updateCount();
}

// The whole list, in after the first screen was shown: laid out again, the tiles on screen kept
// (their elements, focus and selection) and redrawn from the whole list's items.
function completeGrid() {
  const shown = new Map(S.tiles);
  layout();
  const fresh = renderWindow();
  for (const [id, tile] of shown) {
    const item = S.byId.get(id);
    if (item && !fresh.has(id) && tile.isConnected) fillTile(tile, item);
  }
  updateCount();
}

let windowQueued = false;
function renderWindowSoon() {
  if (windowQueued) return;
  windowQueued = true;
  requestAnimationFrame(() => { windowQueued = false; renderWindow(); });
}

const EMPTY_TEXT = 'No images yet. Drop pictures here, use Add photos, or drag them from another node’s window.';
function updateCount() {
  const n = S.partial || S.items.length, shown = S.partial && !viewActive() ? n : L.items.length;
  const total = n === 1 ? '1 item' : `${n.toLocaleString('en')} items`;
  $('count').textContent = shown === n ? total : `${shown.toLocaleString('en')} of ${total}`;
  $('empty').hidden = shown > 0;
  $('empty').textContent = n > 0 ? 'No titles match the search.' : EMPTY_TEXT;
  T.itemCount = n;
}

// ---- Zoom: slider and ctrl+wheel (trackpad pinch arrives as ctrl+wheel) ----

// A zoom someone picked (slider, ctrl+wheel, pinch): kept in this browser, and it replaces the
// screen's default from then on. `remember` false: a zoom restored or set by the page itself.
function setZoom(height, remember = true) {
  const clamped = clampZoom(height);
  if (remember) {
    L.auto = false;
    try { localStorage.setItem('gallery.zoom', String(clamped)); } catch (_) { /* private mode */ }
  }
  showZoom(clamped);
  layout();
  renderWindow();
}

function showZoom(height) {
  if (L.h === height && $('zoom').value === String(height)) return;
  document.documentElement.style.setProperty('--h', height + 'px');
  $('zoom').value = String(height);
  L.h = height;
}

// ---- FLIP: tiles glide from where they were to where a change put them ----

function flipStart(ids) {
  const tiles = [...S.tiles.values()];
  const first = new Map();
  const viewport = $('scroller').getBoundingClientRect();
  for (const tile of tiles) {
    if (!tile.isConnected) continue;
    const rect = tile.getBoundingClientRect();
    if (rect.bottom < viewport.top - 200 || rect.top > viewport.bottom + 200) continue;
    first.set(tile, rect);
  }
  return () => {
    for (const [tile, rect] of first) {
      if (!tile.isConnected) continue;
      const last = tile.getBoundingClientRect();
      const dx = rect.left - last.left, dy = rect.top - last.top;
      if (Math.abs(dx) < 1 && Math.abs(dy) < 1) continue;
      tile.animate([{ transform: `translate(${dx}px, ${dy}px)` }, { transform: 'none' }],
                   { duration: 180, easing: 'cubic-bezier(.2,.7,.3,1)' });
      T.animated += 1;
    }
  };
}
