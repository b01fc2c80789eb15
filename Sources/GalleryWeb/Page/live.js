// ---- Live changes: the event stream (SSE, resumable by Last-Event-ID) ----

function connectEvents() {
  if (S.events) S.events.close();
  const source = new EventSource(`/api/events?after=${S.lastEventId}`);
  S.events = source;
  source.addEventListener('open', () => { setConnection('live', 'Live'); nodeReachable(); });
  source.addEventListener('changes', (e) => applyBatch(JSON.parse(e.data)));
  source.addEventListener('progress', (e) => applyProgress(JSON.parse(e.data)));
  // The node no longer has the changes after our ID: load everything again, then follow from there.
  source.addEventListener('reset', () => { resync().then(connectEvents).catch(() => {}); });
  // The stream dropped: offline.js asks the node whether it is there (banner, retry in 3 s) or
  // signed us out, and reconnects from what we have.
  source.addEventListener('error', () => streamDropped(source));
}

function applyProgress(event) {
  const item = S.byId.get(event.id);
  if (!item) return;
  item.progress = { done: event.done, total: event.total };
  const tile = S.tiles.get(event.id);
  if (tile) setProgress(tile, item.progress);
}

// One batch: remove every moved or deleted item, then place the inserted and moved items of the
// gallery shown in ascending index (indices are positions after the whole batch; http-api.md §6).
function applyBatch(batch) {
  if (batch.id <= S.lastEventId) return;   // seen already (a snapshot covered it)
  S.lastEventId = batch.id;
  T.lastEventId = batch.id;
  const events = batch.events || [];
  const named = events.filter((e) => e.id).map((e) => e.id);
  const finishFlip = flipStart(named);
  const focused = document.activeElement && document.activeElement.closest('#grid') ? S.focusId : null;
  let galleriesChanged = false;
  let reshaped = false;
  const places = [];
  const removed = new Set();
  for (const event of events) {
    switch (event.event) {
      case 'galleryCreated':
      case 'galleryRenamed':
      case 'galleryDeleted':
        galleriesChanged = true;
        break;
      case 'deleted':
      case 'trashed':
        removed.add(event.id);
        galleriesChanged = true;
        if (event.reason) failed(event);
        break;
      case 'moved':
      case 'restored':
        removed.add(event.id);
        galleriesChanged = true;
        if (event.gallery === S.gallery) places.push(event);
        break;
      case 'inserted':
        galleriesChanged = true;
        if (event.gallery === S.gallery) { removed.add(event.id); places.push(event); }
        break;
      case 'updated':
      case 'committed': {
        const item = S.byId.get(event.id);
        const shape = item && aspectOf(item);
        if (item && event.item) Object.assign(item, event.item);
        if (item && aspectOf(item) !== shape) reshaped = true;   // the node knows the size now
        else if (item && event.event === 'committed') item.state = 'ready';
        if (item && S.tiles.get(event.id)) fillTile(S.tiles.get(event.id), item);
        if (S.uploads.has(event.id) && event.event === 'committed') S.uploads.delete(event.id);
        break;
      }
    }
  }
  if (removed.size) {
    S.items = S.items.filter((item) => !removed.has(item.id));
    for (const id of removed) {
      const tile = S.tiles.get(id);
      const staying = places.some((p) => p.id === id);
      if (staying) continue;
      if (tile && !tile.classList.contains('failed')) tile.remove();
      S.tiles.delete(id); S.byId.delete(id); S.selected.delete(id);
    }
  }
  places.sort((a, b) => a.index - b.index);
  for (const event of places) {
    const known = S.byId.get(event.id);
    const item = Object.assign(known || {}, event.item || { id: event.id, title: event.title, state: event.state });
    S.byId.set(item.id, item);
    const index = Math.max(0, Math.min(event.index == null ? S.items.length : event.index, S.items.length));
    S.items.splice(index, 0, item);
  }
  if (removed.size || places.length || reshaped) {
    layout();
    const fresh = renderWindow();
    for (const event of places) {
      const tile = fresh.has(event.id) && S.tiles.get(event.id);
      if (tile) tile.animate([{ opacity: 0, transform: 'scale(.92)' }, { opacity: 1, transform: 'none' }], { duration: 180 });
    }
  }
  if (removed.size || places.length) updateCount();
  // Moving a tile in the DOM takes the keyboard focus away from it: give it back.
  const tile = focused && S.tiles.get(focused);
  if (tile && document.activeElement !== tile) tile.focus({ preventScroll: true });
  finishFlip();
  if (galleriesChanged) refreshGalleriesSoon();
  trashBatch(events);
  T.batches += 1;
  T.lastBatchAt = performance.now();
}

// A placeholder whose transfer failed: it shows why, then fades away.
function failed(event) {
  const tile = S.tiles.get(event.id);
  const title = event.title || (S.byId.get(event.id) || {}).title || 'An item';
  toast(`${title}: ${event.reason}`, 'error');
  if (!tile) return;
  tile.classList.add('failed');
  tile.querySelector('.frame').replaceChildren(el('div', 'reason', event.reason));
  setTimeout(() => tile.classList.add('leaving'), 1800);
  setTimeout(() => tile.remove(), 2200);
}

// ---- Selection and keyboard ----

function setSelection(ids, anchor) {
  S.selected = new Set(ids);
  if (anchor !== undefined) S.anchor = anchor;
  for (const [id, tile] of S.tiles) {
    const on = S.selected.has(id);
    tile.classList.toggle('selected', on);
    tile.setAttribute('aria-selected', String(on));
  }
  renderSelectionBar();   // phone.js
}

function focusTile(id) {
  const previous = S.tiles.get(S.focusId);
  if (previous) previous.tabIndex = -1;
  S.focusId = id;
  const index = indexOfId(id);
  if (index < 0) return;
  const scroller = $('scroller'), top = L.ys[index] + $('grid').offsetTop;
  if (top < scroller.scrollTop || top + L.h + CAPTION > scroller.scrollTop + scroller.clientHeight) {
    scroller.scrollTop = Math.max(0, top - (scroller.clientHeight - L.h - CAPTION) / 2);
  }
  renderWindow();
  const tile = S.tiles.get(id);
  if (!tile) return;
  tile.tabIndex = 0;
  tile.focus({ preventScroll: true });
}

// The layout index of item `id` (in the view when one is on), -1 when not shown.
function indexOfId(id) { return L.items.findIndex((item) => item.id === id); }

function clickTile(id, e) {
  if (e.shiftKey && S.anchor && S.byId.has(S.anchor)) {
    const [a, b] = [indexOfId(S.anchor), indexOfId(id)].sort((x, y) => x - y);
    setSelection(L.items.slice(a, b + 1).map((item) => item.id));
  } else if (e.ctrlKey || e.metaKey) {
    const next = new Set(S.selected);
    if (next.has(id)) next.delete(id); else next.add(id);
    setSelection(next, id);
  } else {
    setSelection([id], id);
  }
  focusTile(id);
}

// The selected IDs in gallery order.
function selectedInOrder() { return S.items.filter((item) => S.selected.has(item.id)).map((item) => item.id); }

async function moveItems(ids, gallery, index) {
  try {
    const reply = await api('POST', '/api/items/move', index == null ? { items: ids, to: gallery } : { items: ids, to: gallery, index });
    recordUndo(reply, `Moved ${ids.length === 1 ? '1 item' : ids.length + ' items'}`, ids.length > 1);
  } catch (error) {
    toast(`Cannot move: ${error.message}`, 'error');
  }
}

async function deleteItems(ids) {
  if (!ids.length) return;
  try {
    const reply = await api('POST', '/api/items/delete', { items: ids });
    recordUndo(reply, reply.message, true);
  } catch (error) {
    toast(`Cannot delete: ${error.message}`, 'error');
  }
}

function onGridKey(e) {
  if (!L.items.length) return;
  const current = S.focusId && S.byId.has(S.focusId) ? indexOfId(S.focusId) : -1;
  const step = { ArrowLeft: -1, ArrowRight: 1, ArrowUp: -rowLength(), ArrowDown: rowLength() }[e.key];
  if (step !== undefined && e.altKey) {
    e.preventDefault();
    const ids = selectedInOrder();
    if (!ids.length) return;
    if (viewActive()) { refusedWhileViewed(); return; }
    // Index among the items that stay, one place (or one row) further.
    const rest = S.items.filter((item) => !S.selected.has(item.id));
    const before = S.items.slice(0, indexOfId(ids[0])).filter((item) => !S.selected.has(item.id)).length;
    const target = Math.max(0, Math.min(rest.length, before + Math.sign(step) * Math.abs(step)));
    if (target !== before) moveItems(ids, S.gallery, target);
    return;
  }
  if (step !== undefined) {
    e.preventDefault();
    const next = Math.max(0, Math.min(L.items.length - 1, current < 0 ? 0 : current + step));
    const id = L.items[next].id;
    if (e.shiftKey) {
      const [a, b] = [indexOfId(S.anchor || id), next].sort((x, y) => x - y);
      setSelection(L.items.slice(a, b + 1).map((item) => item.id));
    } else if (!(e.ctrlKey || e.metaKey)) {
      setSelection([id], id);
    }
    focusTile(id);
  } else if (e.key === 'Delete' || e.key === 'Backspace') {
    e.preventDefault();
    deleteItems(selectedInOrder());
  } else if (e.key === ' ' && S.focusId) {
    e.preventDefault();
    clickTile(S.focusId, { ctrlKey: true });
  } else if (e.key === 'Escape') {
    setSelection([], null);
  } else if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 'a') {
    e.preventDefault();
    whenWhole(() => setSelection(L.items.map((item) => item.id)));   // every item, not the first screen's
  }
}

// How many tiles the row of the focused tile holds (for up/down).
function rowLength() {
  const index = S.focusId ? indexOfId(S.focusId) : 0;
  if (index < 0 || !L.rows.length) return 1;
  const row = rowAt(L.ys[index]);
  return Math.max(1, rowEnd(row) - L.rows[row]);
}
