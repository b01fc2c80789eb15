// ---- The viewer: one picture as large as the window (viewer.js) ----
// Opens on a double-click, Enter or a tap (touch) on a tile. Shows the 1280 px thumbnail at once,
// then the original once its bytes have arrived (read from the response a piece at a time, for the
// progress bar) and decoded off the main thread. Left/Right (and a swipe) step through the gallery;
// Escape closes and gives the focus back to the tile; the 100% button, `1`, `Z` or a double-click on
// the picture toggle actual size (one image pixel per device pixel), dragged or wheeled to pan.
// A modal dialog: the rest of the page is inert while it is open, and Tab stays inside it.

const VIEWER_THUMBNAIL = 1280;
const SWIPE = 50;   // CSS pixels a touch must travel sideways to step

const V = {
  root: null, stage: null, image: null, reason: null, title: null, position: null, status: null,
  zoomButton: null, progress: null,
  id: null, index: -1,        // the item shown and where it was in the gallery
  token: 0,                   // bumped per item shown: late loads of an earlier item are dropped
  kind: 'none',               // what the stage shows: 'none', 'thumbnail' or 'original'
  natural: null,              // {w, h} of the image shown, in image pixels
  zoom: false, cx: 0.5, cy: 0.5,   // actual size, and the image point (0...1) at the stage's centre
  under: null,                // the thumbnail left under the original until the original is painted
  controller: null, objectURL: null, pointer: null, openedAt: 0,
};

// What tests read: window.__state.viewer.
T.viewer = { open: false, id: null, showing: 'none', zoom: false, progress: null, reason: null,
             thumbnailMs: null, originalMs: null, opened: 0 };

// The URL of the `size` px thumbnail of `item` (an item kept by URL: the URL itself).
function viewerSource(item, size) {
  if (item.hash) return size ? `/thumbnails/${item.hash}/${size}` : `/blobs/${item.hash}`;
  if (item.url && /^https?:/i.test(item.url)) return item.url;
  return null;
}

function viewerButton(className, text, label) {
  const button = el('button', className, text);
  button.type = 'button';
  button.setAttribute('aria-label', label);
  button.title = label;
  return button;
}

function buildViewer() {
  const root = el('div', 'viewer');
  root.id = 'viewer';
  root.hidden = true;
  root.tabIndex = -1;
  root.setAttribute('role', 'dialog');
  root.setAttribute('aria-modal', 'true');
  root.setAttribute('aria-labelledby', 'viewer-title');
  root.setAttribute('aria-describedby', 'viewer-status');
  const bar = el('div', 'viewer-bar');
  V.title = el('h2', 'viewer-title');
  V.title.id = 'viewer-title';
  V.position = el('span', 'viewer-position');
  V.status = el('span', 'viewer-status');
  V.status.id = 'viewer-status';
  V.status.setAttribute('role', 'status');
  V.status.setAttribute('aria-live', 'polite');
  V.zoomButton = viewerButton('viewer-zoom', '100%', 'Actual size (1)');
  V.zoomButton.setAttribute('aria-pressed', 'false');
  const close = viewerButton('viewer-close', '×', 'Close (Escape)');
  // The title is edited here at every width (a phone's grid shows no captions): trash.js.
  V.editTitle = viewerButton('viewer-edit', '✎', 'Edit title (F2)');
  V.stage = el('div', 'viewer-stage');
  V.image = viewerImage();
  V.reason = el('div', 'viewer-reason');
  V.reason.hidden = true;
  V.stage.append(V.image, V.reason);
  const previous = viewerButton('viewer-step viewer-previous', '‹', 'Previous (Left arrow)');
  const next = viewerButton('viewer-step viewer-next', '›', 'Next (Right arrow)');
  V.progress = el('div', 'viewer-progress');
  V.progress.setAttribute('role', 'progressbar');
  V.progress.setAttribute('aria-label', 'Original');
  V.progress.setAttribute('aria-valuemin', '0');
  V.progress.setAttribute('aria-valuemax', '100');
  V.progress.appendChild(el('div', 'viewer-progress-bar'));
  V.progress.hidden = true;
  bar.append(V.title, V.editTitle, V.position, V.status, V.zoomButton, close, V.progress);
  root.append(bar, V.stage, previous, next);
  document.body.appendChild(root);
  V.root = root;

  close.addEventListener('click', closeViewer);
  V.editTitle.addEventListener('click', () => editViewerTitle());
  previous.addEventListener('click', () => stepViewer(-1));
  next.addEventListener('click', () => stepViewer(1));
  V.zoomButton.addEventListener('click', () => setViewerZoom(!V.zoom));
  root.addEventListener('keydown', onViewerKey);
  V.stage.addEventListener('dblclick', (e) => { e.preventDefault(); setViewerZoom(!V.zoom, e.clientX, e.clientY); });
  V.stage.addEventListener('pointerdown', onViewerPointerDown);
  V.stage.addEventListener('pointermove', onViewerPointerMove);
  V.stage.addEventListener('pointerup', onViewerPointerUp);
  V.stage.addEventListener('pointercancel', () => { V.pointer = null; });
  V.stage.addEventListener('wheel', (e) => {
    if (!V.zoom) return;
    e.preventDefault();
    panViewer(-e.deltaX, -e.deltaY);
  }, { passive: false });
  new ResizeObserver(placeViewerImage).observe(V.stage);
  if (window.visualViewport) {
    window.visualViewport.addEventListener('resize', fitViewerToViewport);
    window.visualViewport.addEventListener('scroll', fitViewerToViewport);
  }
}

// The dialog covers what is visible: the visual viewport, which on a phone can be smaller than
// the layout viewport `position: fixed` is relative to (a page wider than the screen, a pinch).
function fitViewerToViewport() {
  const viewport = window.visualViewport;
  if (!viewport || !V.root || V.root.hidden) return;
  const style = V.root.style;
  style.left = `${viewport.offsetLeft}px`;
  style.top = `${viewport.offsetTop}px`;
  style.width = `${viewport.width}px`;
  style.height = `${viewport.height}px`;
}

function viewerImage() {
  const image = document.createElement('img');
  image.className = 'viewer-image';
  image.alt = '';
  image.draggable = false;
  image.decoding = 'async';
  image.referrerPolicy = 'no-referrer';
  return image;
}

// The tiles open the viewer: double-click, Enter on the focused tile, a tap with a finger.
function wireViewer() {
  buildViewer();
  const grid = $('grid');
  grid.addEventListener('dblclick', (e) => {
    const tile = e.target.closest('.tile');
    if (tile && !e.target.closest('.cancel')) openViewer(tile.dataset.id);
  });
  grid.addEventListener('click', (e) => {
    const tile = e.target.closest('.tile');
    if (tile && e.pointerType === 'touch' && !e.target.closest('.cancel')) openViewer(tile.dataset.id);
  });
  grid.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && !e.altKey && !e.ctrlKey && !e.metaKey && S.focusId) {
      e.preventDefault();
      openViewer(S.focusId);
    }
  });
}

function openViewer(id) {
  const item = S.byId.get(id);
  if (!item || item.state === 'placeholder') return;
  V.openedAt = performance.now();
  V.root.hidden = false;
  fitViewerToViewport();
  $('app').inert = true;
  document.body.classList.add('viewing');
  T.viewer.open = true;
  T.viewer.opened += 1;
  showInViewer(id);
  V.root.focus({ preventScroll: true });
}

function closeViewer() {
  if (V.root.hidden) return;
  stopOriginal();
  V.token += 1;
  V.root.hidden = true;
  $('app').inert = false;
  document.body.classList.remove('viewing');
  V.image.removeAttribute('src');
  if (V.under) { V.under.remove(); V.under = null; }
  V.kind = 'none';
  T.viewer.open = false;
  T.viewer.showing = 'none';
  const id = V.id;
  if (id && S.byId.has(id)) {
    setSelection([id], id);
    focusTile(id);
  } else {
    $('grid').focus({ preventScroll: true });
  }
}

// The item `delta` places from the one shown (placeholders have nothing to show: skipped).
function stepViewer(delta) {
  let index = indexOfId(V.id);
  if (index < 0) index = Math.min(V.index, S.items.length) - (delta > 0 ? 1 : 0);
  for (let i = index + delta; i >= 0 && i < S.items.length; i += delta) {
    if (S.items[i].state !== 'placeholder') { showInViewer(S.items[i].id); return; }
  }
}

function showInViewer(id) {
  const item = S.byId.get(id);
  if (!item) return;
  stopOriginal();
  const token = ++V.token;
  V.id = id;
  V.index = indexOfId(id);
  V.zoom = false; V.cx = 0.5; V.cy = 0.5;
  V.kind = 'none';
  V.natural = null;
  V.reason.hidden = true;
  V.zoomButton.setAttribute('aria-pressed', 'false');
  const title = item.title == null ? '' : String(item.title);
  V.title.textContent = title || 'Untitled';
  V.position.textContent = `${V.index + 1} of ${S.items.length}`;
  setViewerStatus('');
  Object.assign(T.viewer, { id, showing: 'none', zoom: false, progress: null, reason: null, thumbnailMs: null, originalMs: null,
                            originalResponseMs: null, originalBytesMs: null });
  const started = performance.now();
  const thumbnail = viewerSource(item, item.hash ? VIEWER_THUMBNAIL : 0);
  if (thumbnail) {
    presentImage(thumbnail, item.hash ? 'thumbnail' : 'original', token, started);
  } else {
    showViewerReason('no image');
  }
  if (item.hash) loadOriginal(item, token, started);
  preloadNeighbours();
}

// Decodes `source` off the main thread, then puts it on the stage, unless something better (the
// original) or another item is there by then.
async function presentImage(source, kind, token, started) {
  if (window.PerformanceObserver && (PerformanceObserver.supportedEntryTypes || []).includes('element')) {
    return presentPainted(source, kind, token, started);
  }
  const image = viewerImage();
  image.alt = V.title.textContent;
  image.src = source;
  try {
    await image.decode();
  } catch (_) {
    if (token !== V.token || kind === 'original') return;
    const reason = await reasonFor(source);
    if (token === V.token && V.kind === 'none') showViewerReason(reason || 'image unavailable');
    return;
  }
  if (token !== V.token) return;
  // How long until it was on screen (the frame after it was put there), for tests and benchmarks;
  // a thumbnail that came after the original counts when it was ready.
  const key = kind === 'thumbnail' ? 'thumbnailMs' : 'originalMs';
  const record = () => { if (token === V.token && T.viewer[key] === null) T.viewer[key] = performance.now() - started; };
  if (kind === 'thumbnail' && V.kind === 'original') { record(); return; }
  requestAnimationFrame(record);
  V.stage.replaceChild(image, V.image);
  if (V.under) { V.under.remove(); V.under = null; }
  V.image = image;
  V.kind = kind;
  V.natural = { w: image.naturalWidth, h: image.naturalHeight };
  V.reason.hidden = true;
  placeViewerImage();
  T.viewer.showing = kind;
}

// Puts `source` on stage as soon as its bytes are parsed, decoded by the compositor (off the main
// thread, and for a JPEG drawn smaller than its pixels at a reduced scale, which a full decode with
// `decode()` cannot do). The original goes above the thumbnail, at its place, and the thumbnail
// stays until the original has been painted (Element Timing), so the picture never blinks.
async function presentPainted(source, kind, token, started) {
  const image = viewerImage();
  image.alt = V.title.textContent;
  image.setAttribute('elementtiming', 'viewer-' + kind);
  const loaded = new Promise((resolve) => {
    image.addEventListener('load', () => resolve(true), { once: true });
    image.addEventListener('error', () => resolve(false), { once: true });
  });
  image.src = source;
  if (!await loaded) {
    if (token !== V.token || kind === 'original') return;
    const reason = await reasonFor(source);
    if (token === V.token && V.kind === 'none') showViewerReason(reason || 'image unavailable');
    return;
  }
  if (token !== V.token) return;
  const key = kind === 'thumbnail' ? 'thumbnailMs' : 'originalMs';
  if (kind === 'thumbnail' && V.kind === 'original') {
    if (T.viewer[key] === null) T.viewer[key] = performance.now() - started;
    return;
  }
  const painted = new Promise((resolve) => {
    const observer = new PerformanceObserver((list) => {
      const entry = list.getEntries().find((e) => e.element === image);
      if (entry) { observer.disconnect(); resolve(entry.renderTime || entry.loadTime); }
    });
    observer.observe({ type: 'element', buffered: true });
    setTimeout(() => { observer.disconnect(); resolve(performance.now()); }, 5000);   // never painted (closed meanwhile)
  });
  const under = kind === 'original' && V.kind === 'thumbnail' ? V.image : null;
  if (under) {
    V.stage.insertBefore(image, V.reason);
  } else {
    V.stage.replaceChild(image, V.image);
    if (V.under) { V.under.remove(); V.under = null; }
  }
  V.under = under;
  V.image = image;
  V.kind = kind;
  V.natural = { w: image.naturalWidth, h: image.naturalHeight };
  V.reason.hidden = true;
  placeViewerImage();
  T.viewer.showing = kind;
  const at = await painted;
  if (token !== V.token) return;
  if (T.viewer[key] === null) T.viewer[key] = at - started;
  if (under && V.under === under) { under.remove(); V.under = null; }
}

// The node's reason (its JSON refusal's `message`) for a same-origin URL that did not load.
async function reasonFor(source) {
  if (!source.startsWith('/')) return null;
  try {
    const response = await fetch(source, { credentials: 'same-origin' });
    if (response.ok) return null;
    const reply = await response.json();
    return reply && reply.message ? String(reply.message) : `error ${response.status}`;
  } catch (_) {
    return null;
  }
}

// Fetches the original with a reader (progress as it arrives), then shows it.
async function loadOriginal(item, token, started) {
  const controller = new AbortController();
  V.controller = controller;
  setOriginalProgress(null);
  setViewerStatus('Loading the original…');
  try {
    const response = await fetch(viewerSource(item, 0), { credentials: 'same-origin', signal: controller.signal });
    if (!response.ok) {
      let message = `error ${response.status}`;
      try { const reply = await response.json(); if (reply && reply.message) message = String(reply.message); } catch (_) { /* kept */ }
      throw new Error(message);
    }
    T.viewer.originalResponseMs = performance.now() - started;
    const total = Number(response.headers.get('Content-Length')) || Number(item.bytes) || 0;
    const reader = response.body.getReader();
    const chunks = [];
    let received = 0, shown = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      received += value.byteLength;
      // The bar moves at most every 100 ms: a piece costs the main thread no more than a push.
      if (token === V.token && performance.now() - shown >= 100) {
        shown = performance.now();
        setOriginalProgress(total ? { done: received, total } : null);
      }
    }
    if (token !== V.token) return;
    T.viewer.originalBytesMs = performance.now() - started;
    V.objectURL = URL.createObjectURL(new Blob(chunks, { type: item.mediaType || 'application/octet-stream' }));
    setOriginalProgress(undefined);
    await presentImage(V.objectURL, 'original', token, started);
    if (token === V.token) setViewerStatus(V.kind === 'original' && V.natural ? `${V.natural.w} × ${V.natural.h}` : '');
  } catch (error) {
    if (controller.signal.aborted || token !== V.token) return;
    setOriginalProgress(undefined);
    T.viewer.reason = error.message;
    setViewerStatus(`Original unavailable: ${error.message}`);
    if (V.kind === 'none') showViewerReason(error.message);
  } finally {
    if (V.controller === controller) V.controller = null;
  }
}

function stopOriginal() {
  if (V.controller) { V.controller.abort(); V.controller = null; }
  if (V.objectURL) { URL.revokeObjectURL(V.objectURL); V.objectURL = null; }
  setOriginalProgress(undefined);
}

// progress: {done, total}; null while waiting (an indeterminate bar); undefined hides the bar.
function setOriginalProgress(progress) {
  T.viewer.progress = progress === undefined ? null : progress;
  V.progress.hidden = progress === undefined;
  const known = progress && progress.total > 0;
  const percent = known ? Math.min(100, Math.floor(progress.done * 100 / progress.total)) : 0;
  V.progress.classList.toggle('waiting', !known);
  V.progress.firstChild.style.width = known ? `${percent}%` : '';
  if (known) {
    V.progress.setAttribute('aria-valuenow', String(percent));
    setViewerStatus(`Original ${percent}%`);
  } else {
    V.progress.removeAttribute('aria-valuenow');
  }
}

function setViewerStatus(text) {
  if (V.status.textContent !== text) V.status.textContent = text;
}

function showViewerReason(text) {
  V.image.removeAttribute('src');
  if (V.under) { V.under.remove(); V.under = null; }
  V.natural = null;
  V.reason.textContent = text;
  V.reason.hidden = false;
  T.viewer.reason = text;
}

// The neighbours' thumbnails, so that the arrows show them at once.
function preloadNeighbours() {
  for (const delta of [1, -1]) {
    const item = S.items[V.index + delta];
    const source = item && item.state !== 'placeholder' && viewerSource(item, item.hash ? VIEWER_THUMBNAIL : 0);
    if (source) { const image = new Image(); image.decoding = 'async'; image.src = source; }
  }
}

// ---- Fitting, actual size and panning ----

// The size the image is drawn at, in CSS pixels: fitted to the stage (never enlarged past its own
// pixels, unless it is a thumbnail smaller than the original), or at actual size.
function viewerImageSize() {
  const stage = V.stage.getBoundingClientRect();
  const ratio = window.devicePixelRatio || 1;
  const { w, h } = V.natural;
  if (V.zoom) return { w: w / ratio, h: h / ratio, stage };
  const reduced = V.kind === 'thumbnail' && Math.max(w, h) >= VIEWER_THUMBNAIL;
  const fit = Math.min(stage.width / w, stage.height / h);
  const scale = reduced ? fit : Math.min(fit, 1 / ratio);
  return { w: w * scale, h: h * scale, stage };
}

function placeViewerImage() {
  if (!V.natural || V.root.hidden) return;
  const { w, h, stage } = viewerImageSize();
  const left = w <= stage.width ? (stage.width - w) / 2 : Math.max(stage.width - w, Math.min(0, stage.width / 2 - V.cx * w));
  const top = h <= stage.height ? (stage.height - h) / 2 : Math.max(stage.height - h, Math.min(0, stage.height / 2 - V.cy * h));
  // Keep the centre where the clamping put it, so that panning past an edge does not build up.
  if (w > stage.width) V.cx = (stage.width / 2 - left) / w;
  if (h > stage.height) V.cy = (stage.height / 2 - top) / h;
  V.image.style.width = `${w}px`;
  V.image.style.height = `${h}px`;
  V.image.style.transform = `translate(${left}px, ${top}px)`;
  if (V.under) V.under.style.cssText = V.image.style.cssText;
  V.stage.classList.toggle('pannable', V.zoom && (w > stage.width || h > stage.height));
}

// Actual size on or off; when turned on at a point of the stage, that point of the image stays put.
function setViewerZoom(on, x, y) {
  if (!V.natural) return;
  if (on && x !== undefined) {
    const rect = V.image.getBoundingClientRect();
    V.cx = Math.max(0, Math.min(1, (x - rect.left) / rect.width));
    V.cy = Math.max(0, Math.min(1, (y - rect.top) / rect.height));
  } else if (on) {
    V.cx = 0.5; V.cy = 0.5;
  }
  V.zoom = on;
  V.zoomButton.setAttribute('aria-pressed', String(on));
  T.viewer.zoom = on;
  placeViewerImage();
}

function panViewer(dx, dy) {
  const { w, h } = viewerImageSize();
  V.cx -= dx / w;
  V.cy -= dy / h;
  placeViewerImage();
}

function onViewerPointerDown(e) {
  if (e.button !== 0) return;
  V.pointer = { id: e.pointerId, x: e.clientX, y: e.clientY, startX: e.clientX, startY: e.clientY, type: e.pointerType };
  if (e.pointerType !== 'touch') V.stage.setPointerCapture(e.pointerId);
}

function onViewerPointerMove(e) {
  const pointer = V.pointer;
  if (!pointer || pointer.id !== e.pointerId || !V.zoom) return;
  panViewer(e.clientX - pointer.x, e.clientY - pointer.y);
  pointer.x = e.clientX; pointer.y = e.clientY;
}

// A sideways swipe (a finger, at fitted size) steps to the next or previous picture.
function onViewerPointerUp(e) {
  const pointer = V.pointer;
  V.pointer = null;
  if (!pointer || pointer.id !== e.pointerId || V.zoom || pointer.type === 'mouse') return;
  const dx = e.clientX - pointer.startX, dy = e.clientY - pointer.startY;
  if (Math.abs(dx) >= SWIPE && Math.abs(dx) > 2 * Math.abs(dy)) stepViewer(dx < 0 ? 1 : -1);
}

function onViewerKey(e) {
  if (e.altKey || e.ctrlKey || e.metaKey) return;
  switch (e.key) {
    case 'Escape': e.preventDefault(); closeViewer(); break;
    case 'F2': e.preventDefault(); editViewerTitle(); break;
    case 'ArrowLeft': e.preventDefault(); stepViewer(-1); break;
    case 'ArrowRight': e.preventDefault(); stepViewer(1); break;
    case '1': case 'z': case 'Z': e.preventDefault(); setViewerZoom(!V.zoom); break;
    case 'Tab': trapViewerFocus(e); break;
  }
}

// Tab and Shift-Tab cycle through the dialog's buttons.
function trapViewerFocus(e) {
  const buttons = [...V.root.querySelectorAll('button')].filter((b) => !b.disabled && b.offsetParent !== null);
  if (!buttons.length) return;
  e.preventDefault();
  const at = buttons.indexOf(document.activeElement);
  const next = at < 0 ? (e.shiftKey ? buttons.length - 1 : 0) : (at + (e.shiftKey ? -1 : 1) + buttons.length) % buttons.length;
  buttons[next].focus();
}

document.addEventListener('DOMContentLoaded', wireViewer);
