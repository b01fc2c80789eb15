// ---- Drag and drop, as UIKit's collection view does it ----
// Within this page a drop is a move (reorder, or to another gallery); from another node's page it is
// a copy, or a move with Shift; another space's items, or a gallery into itself, are forbidden.

function hex(text) {
  return [...new TextEncoder().encode(text)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

function descriptorFor(items, gallery, wholeGallery) {
  return {
    kind: 'gallerysync.items', version: 1, space: S.status.space, node: S.status.node,
    origin: location.origin, gallery, wholeGallery,
    items: items.map((item) => ({ id: item.id, hash: item.hash, bytes: item.bytes, title: item.title,
                                  aspectRatio: item.aspectRatio, mediaType: item.mediaType, url: item.url })),
  };
}

function fillDataTransfer(dataTransfer, items, gallery, wholeGallery) {
  dataTransfer.effectAllowed = 'copyMove';
  dataTransfer.setData(ITEMS_TYPE, JSON.stringify(descriptorFor(items, gallery, wholeGallery)));
  dataTransfer.setData(SPACE_PREFIX + S.status.space, S.status.space);
  if (wholeGallery) dataTransfer.setData(GALLERY_PREFIX + hex(gallery), gallery);
  const uris = items.map((item) => (item.hash ? `${location.origin}/blobs/${item.hash}` : item.url)).filter(Boolean);
  if (uris.length) dataTransfer.setData('text/uri-list', uris.join('\r\n'));
  dataTransfer.setData('text/plain', items.map((item) => item.title || '').join('\n'));
  const download = downloadURL(items);   // drag out to the desktop (Chromium saves the first file)
  if (download) dataTransfer.setData('DownloadURL', download);
}

// `MEDIATYPE:FILENAME:URL` of the first item with bytes on this node, for Chromium's DownloadURL.
function downloadURL(items) {
  const item = items.find((candidate) => candidate.hash);
  if (!item) return null;
  const type = item.mediaType || 'application/octet-stream';
  const extension = { 'image/png': '.png', 'image/jpeg': '.jpg', 'image/gif': '.gif' }[type] || '';
  let name = String(item.title || item.hash.slice(0, 12)).replace(/[\\/:*?"<>|\u0000-\u001f]/g, '_').trim() || 'image';
  if (extension && !/\.[a-z0-9]{2,4}$/i.test(name)) name += extension;
  return `${type}:${name}:${location.origin}/blobs/${item.hash}`;
}

function onTileDragStart(e) {
  const tile = e.target.closest('.tile');
  if (!tile) return;
  const id = tile.dataset.id;
  if (!S.selected.has(id)) setSelection([id], id);
  const ids = selectedInOrder().filter((x) => S.byId.get(x).state !== 'placeholder');
  if (!ids.length) { e.preventDefault(); return; }
  S.drag = { ids, gallery: S.gallery, wholeGallery: false };
  fillDataTransfer(e.dataTransfer, ids.map((x) => S.byId.get(x)), S.gallery, false);
  if (ids.length > 1) {
    const badge = el('div', 'drag-badge', `${ids.length} items`);
    document.body.appendChild(badge);
    e.dataTransfer.setDragImage(badge, 20, 20);
    setTimeout(() => badge.remove(), 0);
  }
  requestAnimationFrame(() => ids.forEach((x) => S.tiles.get(x) && S.tiles.get(x).classList.add('dragging')));
}

function onDragEnd() {
  for (const tile of document.querySelectorAll('.tile.dragging')) tile.classList.remove('dragging');
  S.drag = null;
  hideIndicator();
  clearTargets();
}

// What a drag over `target` ('grid', 'gallery:NAME' or 'trash') would do: 'move', 'copy' or 'none'.
function proposal(e, target) {
  const types = [...e.dataTransfer.types];
  const ours = types.includes(ITEMS_TYPE);
  const files = types.includes('Files');
  if (ours) {
    if (!types.includes(SPACE_PREFIX + S.status.space)) return 'none';            // another space
    const into = target.startsWith('gallery:') ? target.slice(8) : S.gallery;
    if (types.includes(GALLERY_PREFIX + hex(into))) return 'none';                // a gallery into itself
    if (S.drag && target === 'grid' && S.drag.gallery === S.gallery && viewActive()) return 'none';  // no reorder in a view
    if (S.drag) return 'move';                                                     // this page
    if (target === 'trash') return 'none';                                         // not ours to delete
    return e.shiftKey ? 'move' : 'copy';
  }
  if (target === 'trash') return 'none';
  if (files || types.includes('text/uri-list')) return 'copy';
  return 'none';
}

function accept(e, target) {
  const effect = proposal(e, target);
  e.dataTransfer.dropEffect = effect;
  if (effect !== 'none') e.preventDefault();   // no preventDefault: the forbidden cursor, no drop
  return effect;
}

// The insertion index under the pointer, counted in S.items, from the layout (tiles off screen
// are not in the DOM), and where the indicator goes, in grid coordinates.
function insertionAt(e) {
  const n = L.items.length;
  if (!n) return { index: 0, x: 0, y: 0 };
  const box = $('grid').getBoundingClientRect();
  const gx = e.clientX - box.left, gy = e.clientY - box.top;
  if (gy > L.height) {   // below the last row: at the end
    const last = n - 1;
    return { index: n, x: L.xs[last] + L.ws[last] + GAP / 2, y: L.ys[last] };
  }
  const row = rowAt(gy), start = L.rows[row], end = rowEnd(row);
  let index = start;
  while (index < end && L.xs[index] + L.ws[index] / 2 < gx) index++;
  const x = index < end ? L.xs[index] - GAP / 2 : L.xs[end - 1] + L.ws[end - 1] + GAP / 2;
  return { index, x, y: L.ys[start] };
}

function showIndicator(spot) {
  if (!S.items.length) { hideIndicator(); return; }
  const grid = $('grid'), bar = $('indicator');
  bar.style.transform = `translate(${Math.round(grid.offsetLeft + spot.x - 2)}px, ${Math.round(grid.offsetTop + spot.y)}px)`;
  bar.style.height = `${L.h}px`;
  bar.hidden = false;
}

function hideIndicator() { $('indicator').hidden = true; }

function clearTargets() {
  for (const node of document.querySelectorAll('.drop-target')) node.classList.remove('drop-target');
}

function onGridDragOver(e) {
  const effect = accept(e, 'grid');
  $('scroller').classList.toggle('forbidden', effect === 'none');
  if (effect === 'none' || viewActive()) { hideIndicator(); return; }
  showIndicator(insertionAt(e));
}

async function onGridDrop(e) {
  e.preventDefault();
  hideIndicator();
  $('scroller').classList.remove('forbidden');
  const effect = proposal(e, 'grid');
  if (effect === 'none' || !S.gallery) return;
  const index = viewActive() ? null : insertionAt(e).index;   // in a view: at the gallery's end
  await dropInto(e.dataTransfer, effect, S.gallery, index);
}

// Carries out a drop on `gallery` at `index` (null: at the end).
async function dropInto(dataTransfer, effect, gallery, index) {
  const types = [...dataTransfer.types];
  if (types.includes(ITEMS_TYPE) && S.drag) {
    const ids = S.drag.ids;
    if (gallery === S.gallery && index != null) {
      // Count the destination without the moved items, as `gallery move` does.
      index = S.items.slice(0, index).filter((item) => !ids.includes(item.id)).length;
    }
    await moveItems(ids, gallery, index);
  } else if (types.includes(ITEMS_TYPE)) {
    let descriptor;
    try { descriptor = JSON.parse(dataTransfer.getData(ITEMS_TYPE)); } catch (_) { descriptor = null; }
    if (!descriptor || descriptor.space !== S.status.space) { toast('Those items belong to another space.', 'error'); return; }
    try {
      await api('POST', '/api/drops', { descriptor, to: gallery, index: index == null ? null : index, operation: effect });
    } catch (error) {
      toast(`Cannot drop: ${error.message}`, 'error');
    }
  } else if (dataTransfer.files && dataTransfer.files.length) {
    await uploadFiles([...dataTransfer.files], gallery, index);
  } else if (types.includes('text/uri-list')) {
    const urls = dataTransfer.getData('text/uri-list').split(/\r?\n/).map((line) => line.trim())
      .filter((line) => line && !line.startsWith('#') && /^https?:\/\//i.test(line));
    let at = index;
    for (const url of urls) {
      try {
        await api('POST', '/api/items/add-url', { url, to: gallery, index: at, title: null, aspectRatio: null });
        if (at != null) at += 1;
      } catch (error) {
        toast(`Cannot add ${url}: ${error.message}`, 'error');
      }
    }
  }
}

// Files from the desktop: PNG, JPEG and GIF become placeholders at once, then stream up one by one.
async function uploadFiles(files, gallery, index) {
  const images = [];
  for (const file of files) {
    if (IMAGE_TYPES.includes(file.type)) images.push(file);
    else toast(`“${file.name}” is not a PNG, JPEG or GIF image, so it was not added.`, 'error');
  }
  if (!images.length) return;
  const ratios = await measureAspects(images);   // placeholders take the picture's shape at once
  announceAspects(images, ratios);
  let reply;
  try {
    reply = await api('POST', '/api/uploads', {
      to: gallery, index: index == null ? null : index,
      files: images.map((file) => ({ name: file.name, size: file.size, mediaType: file.type })),
    });
  } catch (error) {
    toast(`Cannot upload: ${error.message}`, 'error');
    rememberAspects(images, [], ratios);
    return;
  }
  rememberAspects(images, reply.uploads.map((entry) => entry.item), ratios);
  await Promise.all(reply.uploads.map(async (entry, n) => {
    const controller = new AbortController();
    S.uploads.set(entry.item, { upload: entry.upload, controller });
    T.requests.push({ method: 'PUT', path: `/api/uploads/${entry.upload}`, body: null });
    try {
      const response = await fetch(`/api/uploads/${encodeURIComponent(entry.upload)}`, {
        method: 'PUT', body: images[n], signal: controller.signal, credentials: 'same-origin',
        headers: { 'Content-Type': 'application/octet-stream' },
      });
      if (!response.ok) {
        const body = await response.json().catch(() => null);
        toast(`${images[n].name}: ${(body && body.message) || response.status}`, 'error');
      }
    } catch (error) {
      if (error.name !== 'AbortError') toast(`${images[n].name}: ${unreachable(error).message}`, 'error');
    } finally {
      S.uploads.delete(entry.item);
    }
  }));
}

// The sidebar: a gallery's name takes items (moved there) and can itself be dragged (all its items).
function wireGalleryDrop(row, name) {
  row.addEventListener('dragstart', (e) => {
    if (name !== S.gallery) { e.preventDefault(); return; }   // the gallery shown: its items are loaded
    const items = S.items.filter((item) => item.state !== 'placeholder');
    S.drag = { ids: items.map((item) => item.id), gallery: name, wholeGallery: true };
    fillDataTransfer(e.dataTransfer, items, name, true);
  });
  row.addEventListener('dragend', onDragEnd);
  row.addEventListener('dragover', (e) => {
    const effect = accept(e, 'gallery:' + name);
    row.classList.toggle('drop-target', effect !== 'none');
    row.classList.toggle('forbidden', effect === 'none');
  });
  row.addEventListener('dragleave', () => row.classList.remove('drop-target', 'forbidden'));
  row.addEventListener('drop', async (e) => {
    e.preventDefault();
    row.classList.remove('drop-target', 'forbidden');
    const effect = proposal(e, 'gallery:' + name);
    if (effect !== 'none') await dropInto(e.dataTransfer, effect, name, null);
  });
}

function wireTrash() {
  const trash = $('trash');
  trash.addEventListener('dragover', (e) => trash.classList.toggle('drop-target', accept(e, 'trash') !== 'none'));
  trash.addEventListener('dragleave', () => trash.classList.remove('drop-target'));
  trash.addEventListener('drop', async (e) => {
    e.preventDefault();
    trash.classList.remove('drop-target');
    if (proposal(e, 'trash') !== 'none' && S.drag) await deleteItems(S.drag.ids);
  });
}

function wireChrome() {
  const saved = Number((() => { try { return localStorage.getItem('gallery.zoom'); } catch (_) { return null; } })());
  L.auto = !(saved > 0);   // nothing picked yet: the screen's default (grid.js), not remembered
  setZoom(saved > 0 ? saved : ZOOM.desktop, false);
  $('zoom').addEventListener('input', (e) => setZoom(Number(e.target.value)));
  $('scroller').addEventListener('wheel', (e) => {
    if (!e.ctrlKey) return;
    e.preventDefault();
    setZoom(Number($('zoom').value) * Math.exp(-e.deltaY * 0.0025));
  }, { passive: false });
  $('new-gallery').addEventListener('submit', (e) => { e.preventDefault(); createGallery($('new-gallery-name').value); });
  const grid = $('grid');
  grid.addEventListener('click', (e) => {
    const tile = e.target.closest('.tile');
    if (tile && !e.target.closest('.cancel')) clickTile(tile.dataset.id, e);
    else if (!tile) setSelection([], null);
  });
  grid.addEventListener('keydown', onGridKey);
  grid.addEventListener('dragstart', onTileDragStart);
  grid.addEventListener('dragend', onDragEnd);
  const scroller = $('scroller');
  scroller.addEventListener('scroll', renderWindowSoon, { passive: true });
  new ResizeObserver(() => { layout(); renderWindow(); }).observe(scroller);
  scroller.addEventListener('dragover', onGridDragOver);
  scroller.addEventListener('dragleave', (e) => {
    if (!scroller.contains(e.relatedTarget)) { hideIndicator(); scroller.classList.remove('forbidden'); }
  });
  scroller.addEventListener('drop', onGridDrop);
  wireTrash();
}
