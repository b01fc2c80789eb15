'use strict';
// GallerySync page: one node's space as a live gallery. Vanilla JS, no build step; the contract is
// http-api.md. Titles, file names and messages are always set with textContent, never as HTML.
// `gallery:*` marks time the page's start (gallery-bench web reads them from the navigation's start).
performance.mark('gallery:script');

const ITEMS_TYPE = 'application/x-gallerysync-items+json';
const SPACE_PREFIX = 'application/x-gallerysync-space.';
const GALLERY_PREFIX = 'application/x-gallerysync-gallery.';
const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif'];

const S = {
  status: null,          // GET /api/status
  galleries: [],         // [{name, count}]
  gallery: null,         // the gallery shown
  items: [],             // its items in order
  byId: new Map(),       // id -> item (of the gallery shown)
  tiles: new Map(),      // id -> tile element
  selected: new Set(),   // selected item IDs
  anchor: null,          // where shift-click ranges start
  focusId: null,         // the tile keyboard focus is on
  lastEventId: 0,        // the last change batch applied
  events: null,          // the EventSource
  uploads: new Map(),    // placeholder id -> {upload, controller}
  drag: null,            // the drag this page started: {ids, gallery, wholeGallery}
  shown: null,           // the gallery whose whole list the grid shows
  partial: 0,            // while only the first items are in: the gallery's size, else 0
  whole: Promise.resolve(),   // settles once the gallery being opened is loaded whole
};

// What tests (and curious people) can read: window.__state.
const T = window.__state = { ready: false, connected: false, requests: [], toasts: [], batches: 0,
                             lastBatchAt: 0, renderMs: 0, lastEventId: 0, animated: 0, itemCount: 0 };

const $ = (id) => document.getElementById(id);

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

// A request to the node: JSON in, JSON out. Throws an Error whose message is the node's `message`.
async function api(method, path, body) {
  const init = { method, headers: {}, credentials: 'same-origin' };
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  T.requests.push({ method, path, body: body === undefined ? null : body });
  if (method !== 'GET') refuseWhileOffline();   // offline.js: changes are refused, never queued
  let response;
  try {
    response = await fetch(path, init);
  } catch (error) {
    throw unreachable(error);                    // offline.js: the banner, and a clear message
  }
  let reply = null;
  try { reply = await response.json(); } catch (_) { reply = null; }
  if (response.status === 401) signedOut();
  if (!response.ok) {
    const error = new Error((reply && reply.message) || `${method} ${path}: ${response.status}`);
    error.status = response.status;
    error.code = reply && reply.error;
    throw error;
  }
  return reply;
}

function toast(message, kind) {
  T.toasts.push(message);
  const box = el('div', 'toast' + (kind ? ' ' + kind : ''), message);
  box.setAttribute('role', kind === 'error' ? 'alert' : 'status');
  $('toasts').appendChild(box);
  setTimeout(() => box.classList.add('leaving'), 5200);
  setTimeout(() => box.remove(), 5600);
}

function signedOut() {
  setConnection('signed-out', 'Signed out: open the link `gallery open` prints');
  signedOutBanner();
}

function setConnection(state, label) {
  const dot = $('connection');
  dot.className = 'connection ' + state;
  dot.title = label;
  $('connection-label').textContent = label;
  T.connected = state === 'live';
}

// ---- Galleries (sidebar) ----

async function loadGalleries() {
  const reply = await api('GET', '/api/galleries');
  S.galleries = reply.galleries;
  renderGalleries();
  return reply;
}

function renderGalleries() {
  const list = $('galleries');
  const focused = focusedGalleryName();
  list.replaceChildren();
  for (const gallery of S.galleries) {
    const row = el('li', 'gallery-row');
    row.setAttribute('role', 'option');
    row.setAttribute('aria-selected', String(gallery.name === S.gallery));
    row.dataset.gallery = gallery.name;
    row.draggable = true;
    row.tabIndex = 0;
    row.appendChild(el('span', 'gallery-name', gallery.name));
    row.appendChild(el('span', 'gallery-count', gallery.count));
    row.addEventListener('click', () => selectGallery(gallery.name));
    row.addEventListener('keydown', (e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); selectGallery(gallery.name); } });
    wireGalleryDrop(row, gallery.name);
    decorateGalleryRow(row, gallery.name);
    list.appendChild(row);
  }
  settleGalleryFocus(focused);
}

let galleriesRefresh = null;
function refreshGalleriesSoon() {
  clearTimeout(galleriesRefresh);
  galleriesRefresh = setTimeout(() => loadGalleries().catch(() => {}), 250);
}

async function createGallery(name) {
  name = name.trim();
  if (!name) return;
  try {
    await api('POST', '/api/galleries', { name });
    $('new-gallery-name').value = '';
    await loadGalleries();
    await selectGallery(name);
  } catch (error) {
    toast(`Cannot create “${name}”: ${error.message}`, 'error');
  }
}

async function selectGallery(name) {
  closeTrash();
  if (location.hash !== '#' + encodeURIComponent(name)) history.replaceState(null, '', '#' + encodeURIComponent(name));
  S.gallery = name;
  S.selected.clear();
  S.anchor = null;
  renderGalleries();
  await loadItems();
}

// ---- Items of the gallery shown ----

// Opening a gallery asks for its first screen (`?limit=N`), paints it, then asks for the whole list
// (2.4 MB for 10,000 items), which replaces it, keeping the tiles shown (so focus, selection and a
// drag in progress survive). Meanwhile `S.partial` is the gallery's size as the node said, the count shows
// it, and what needs every item (Ctrl+A) waits for `S.whole`. Everything that counts indices (a
// drop, Shift+click, the keyboard) works on the first items as they are: they are the gallery's
// first items, in its order. A gallery shown already (a `reset`) is loaded whole, as before.
async function loadItems() {
  const started = performance.now();
  const gallery = S.gallery;
  const path = `/api/galleries/${encodeURIComponent(gallery)}/items`;
  const first = S.shown !== gallery ? api('GET', `${path}?limit=${firstScreenCount()}`).catch(() => null) : null;
  // The whole list is asked for once the first screen has painted: its answer (2.4 MB for 10,000
  // items, encoded by the node and parsed here on the main thread) would otherwise compete with it.
  const whole = first ? first.then(afterPaint).then(() => api('GET', path)) : api('GET', path);
  let wholeDone;
  const mine = S.whole = new Promise((resolve) => { wholeDone = resolve; });
  let previewed = false;
  try {
    let arrived = false;
    whole.then(() => { arrived = true; }, () => {});
    const head = first && await first;
    if (head && !arrived && head.gallery === gallery && S.gallery === gallery) {
      performance.mark('gallery:items-first');
      showItems(head.items, Number(head.total) > head.items.length ? Number(head.total) : 0);
      renderGrid();
      previewed = true;
      performance.mark('gallery:first-rendered');
    }
    const reply = await whole;
    if (reply.gallery !== S.gallery) return;
    const fetched = performance.now();
    performance.mark('gallery:items-whole');
    showItems(reply.items, 0);
    if (previewed) completeGrid(); else renderGrid();
    S.shown = gallery;
    T.fetchMs = fetched - started;
    T.renderMs = performance.now() - fetched;
    performance.mark('gallery:items-rendered');
    return reply;
  } finally {
    if (S.whole === mine) { S.partial = 0; T.partial = false; }
    wholeDone();
  }
}

// The gallery's items (all, or its first ones when `total` says how many it has).
function showItems(items, total) {
  S.items = items;
  S.byId = new Map(items.map((item) => [item.id, item]));
  S.partial = total;
  T.partial = total > 0;
}

// Settles after the next frame has painted (or after 100 ms, in a tab that paints no frames).
function afterPaint() {
  return new Promise((resolve) => {
    requestAnimationFrame(() => setTimeout(resolve, 0));
    setTimeout(resolve, 100);
  });
}

// Runs `action` once the gallery shown is loaded whole (at once when it is).
function whenWhole(action) {
  if (S.partial) S.whole.then(action); else action();
}

// How many items fill the first screen, with room to spare: rows of the zoom's height (a phone's
// smallest) over the window and the grid's overscan, tiles half as wide as they are tall.
function firstScreenCount() {
  const h = NARROW.matches ? ZOOM.min * 1.5 : (L.h || ZOOM.desktop);
  const perRow = Math.ceil(window.innerWidth / (h * 0.5 + 4));
  const rows = Math.ceil((window.innerHeight + OVERSCAN) / (h + 4));
  return Math.max(60, Math.min(1000, perRow * rows));
}

// Loads everything again and resumes the stream after what was loaded (start, `reset`).
async function resync() {
  // The node's status and its galleries in parallel: one round trip less before the grid paints.
  const [status, reply] = await Promise.all([api('GET', '/api/status'), loadGalleries()]);
  S.status = status;
  $('node-name').textContent = status.node;
  document.title = `${status.node} · Gallery`;
  if (!S.gallery || !S.galleries.some((g) => g.name === S.gallery)) {
    const wanted = decodeURIComponent(location.hash.slice(1));
    S.gallery = S.galleries.some((g) => g.name === wanted) ? wanted
      : (S.galleries.some((g) => g.name === status.node) ? status.node : (S.galleries[0] || {}).name);
  }
  renderGalleries();
  const items = S.gallery ? await loadItems() : null;
  // Both snapshots were taken at or after these IDs; start after the smaller one (a repeated change is
  // recognised by its ID and skipped, so nothing is applied twice).
  S.lastEventId = Math.min(reply.lastEventId, items ? items.lastEventId : reply.lastEventId);
  T.lastEventId = S.lastEventId;
}

async function boot() {
  performance.mark('gallery:boot');
  wireChrome();
  try {
    await resync();
  } catch (error) {
    toast(`Cannot load the gallery: ${error.message}`, 'error');
    return;
  }
  connectEvents();
  T.ready = true;
}

document.addEventListener('DOMContentLoaded', boot);
