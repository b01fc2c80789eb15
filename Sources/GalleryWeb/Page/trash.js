// ---- The Trash as a place, gallery rename and delete, titles edited in place ----
// Deleting moves items to the Trash (http-api.md, "Trash and undo"): the sidebar's Trash opens a
// view of it with Restore (back to the gallery and place each left) and Empty Trash (asks first;
// nothing undoes it). Items stay 30 days, then the node deletes them for good.

const TR = { open: false, items: [], selected: new Set(), view: null };
T.trash = TR;

function trashView() {
  if (TR.view) return TR.view;
  const view = el('section', 'trash-view');
  view.id = 'trash-view';
  view.hidden = true;
  view.setAttribute('aria-label', 'Trash');
  const bar = el('div', 'trash-bar');
  const note = el('p', 'trash-note', 'Items in the Trash are deleted for good after 30 days.');
  const restore = el('button', 'trash-restore', 'Restore');
  restore.id = 'trash-restore';
  restore.type = 'button';
  restore.addEventListener('click', () => restoreItems(TR.selected.size ? [...TR.selected] : TR.items.map((i) => i.id)));
  const empty = el('button', 'trash-empty danger', 'Empty Trash');
  empty.id = 'trash-empty';
  empty.type = 'button';
  empty.addEventListener('click', confirmEmptyTrash);
  bar.append(note, restore, empty);
  const list = el('div', 'trash-items');
  list.id = 'trash-items';
  list.setAttribute('role', 'listbox');
  list.setAttribute('aria-multiselectable', 'true');
  list.setAttribute('aria-label', 'Items in the Trash');
  const none = el('p', 'trash-none', 'The Trash is empty.');
  none.id = 'trash-none';
  view.append(bar, list, none);
  $('main').appendChild(view);
  TR.view = view;
  return view;
}

async function openTrash() {
  TR.open = true;
  S.gallery = null;
  S.selected.clear();
  history.replaceState(null, '', '#trash');
  trashView().hidden = false;
  $('scroller').hidden = true;
  $('zoom').closest('.zoom').hidden = true;
  $('gallery-title').textContent = 'Trash';
  $('trash').setAttribute('aria-current', 'page');
  renderGalleries();
  await loadTrash();
}

// Leaves the Trash view (a gallery was chosen).
function closeTrash() {
  if (!TR.open) return;
  TR.open = false;
  TR.selected.clear();
  trashView().hidden = true;
  $('scroller').hidden = false;
  $('zoom').closest('.zoom').hidden = false;
  $('trash').removeAttribute('aria-current');
}

async function loadTrash() {
  const reply = await api('GET', '/api/trash');
  TR.items = reply.items;
  for (const id of [...TR.selected]) if (!TR.items.some((i) => i.id === id)) TR.selected.delete(id);
  renderTrashCount();
  if (TR.open) renderTrash();
  return reply;
}

let trashRefresh = null;
function refreshTrashSoon() {
  clearTimeout(trashRefresh);
  trashRefresh = setTimeout(() => loadTrash().catch(() => {}), 150);
}

function renderTrashCount() {
  let badge = $('trash-count');
  if (!badge) {
    badge = el('span', 'trash-count');
    badge.id = 'trash-count';
    $('trash').appendChild(badge);
  }
  badge.textContent = TR.items.length ? String(TR.items.length) : '';
}

function renderTrash() {
  const list = $('trash-items');
  list.replaceChildren();
  for (const item of TR.items) {
    const card = el('div', 'trash-card');
    card.dataset.id = item.id;
    card.setAttribute('role', 'option');
    card.tabIndex = 0;
    const selected = TR.selected.has(item.id);
    card.classList.toggle('selected', selected);
    card.setAttribute('aria-selected', String(selected));
    card.style.setProperty('--a', aspectOf(item));
    const frame = el('div', 'frame');
    const source = thumbnailURL(item);   // a thumbnail, never the original (which may be on a peer only)
    if (source) {
      const image = document.createElement('img');
      image.alt = '';
      image.loading = 'lazy';
      image.draggable = false;
      image.referrerPolicy = 'no-referrer';
      image.src = source;
      frame.appendChild(image);
    } else {
      frame.appendChild(el('div', 'missing', item.state === 'placeholder' ? 'loading' : 'no image'));
    }
    const title = item.title == null ? 'untitled' : String(item.title);
    card.setAttribute('aria-label', `${title}, from ${item.from}`);
    const restore = el('button', 'card-restore', 'Restore');
    restore.type = 'button';
    restore.setAttribute('aria-label', `Restore ${title} to ${item.from}`);
    restore.addEventListener('click', (e) => { e.stopPropagation(); restoreItems([item.id]); });
    card.append(frame, el('div', 'caption', title), el('div', 'from', `from ${item.from}`), restore);
    card.addEventListener('click', (e) => toggleTrashSelection(item.id, e));
    card.addEventListener('keydown', (e) => {
      if (e.key === ' ' || e.key === 'Enter') { e.preventDefault(); toggleTrashSelection(item.id, { ctrlKey: true }); }
    });
    list.appendChild(card);
  }
  $('trash-none').hidden = TR.items.length > 0;
  $('count').textContent = TR.items.length === 1 ? '1 item' : `${TR.items.length} items`;
  $('trash-restore').textContent = TR.selected.size ? `Restore ${TR.selected.size === 1 ? '1 item' : TR.selected.size + ' items'}` : 'Restore all';
  $('trash-restore').disabled = TR.items.length === 0;
  $('trash-empty').disabled = TR.items.length === 0;
}

function toggleTrashSelection(id, e) {
  if (e.ctrlKey || e.metaKey) {
    if (TR.selected.has(id)) TR.selected.delete(id); else TR.selected.add(id);
  } else {
    TR.selected = new Set(TR.selected.size === 1 && TR.selected.has(id) ? [] : [id]);
  }
  renderTrash();
}

async function restoreItems(ids) {
  if (!ids.length) return;
  try {
    const reply = await api('POST', '/api/items/restore', { items: ids });
    recordUndo(reply, reply.message, true);
    TR.selected.clear();
    await loadTrash();
  } catch (error) {
    toast(`Cannot restore: ${error.message}`, 'error');
  }
}

// Empty Trash asks first, in a dialog: nothing undoes it.
function confirmEmptyTrash() {
  const count = TR.items.length;
  if (!count) return;
  const dialog = document.createElement('dialog');
  dialog.id = 'confirm-empty';
  dialog.className = 'confirm';
  dialog.setAttribute('aria-labelledby', 'confirm-empty-title');
  const heading = el('h2', null, `Delete ${count === 1 ? '1 item' : count + ' items'} for good?`);
  heading.id = 'confirm-empty-title';
  const text = el('p', null, 'Items deleted from the Trash cannot be restored, on any node.');
  const cancel = el('button', 'secondary', 'Cancel');
  cancel.type = 'button';
  cancel.addEventListener('click', () => dialog.close('cancel'));
  const confirm = el('button', 'danger', 'Empty Trash');
  confirm.type = 'button';
  confirm.id = 'confirm-empty-ok';
  confirm.addEventListener('click', () => dialog.close('empty'));
  const buttons = el('div', 'buttons');
  buttons.append(cancel, confirm);
  dialog.append(heading, text, buttons);
  dialog.addEventListener('close', async () => {
    dialog.remove();
    if (dialog.returnValue !== 'empty') return;
    try {
      const reply = await api('POST', '/api/trash/empty', {});
      toast(reply.message);
      await loadTrash();
    } catch (error) {
      toast(`Cannot empty the Trash: ${error.message}`, 'error');
    }
  });
  document.body.appendChild(dialog);
  dialog.showModal();
  cancel.focus();
}

// ---- Live: what a batch of changes means for the Trash and the galleries ----

function trashBatch(events) {
  if (events.some((e) => ['trashed', 'restored', 'deleted', 'galleryDeleted', 'galleryRenamed'].includes(e.event))) {
    refreshTrashSoon();
  }
  if (!TR.open && events.some((e) => e.event === 'galleryDeleted' || e.event === 'galleryRenamed')) {
    // The gallery shown may be gone (deleted, or renamed elsewhere): show another one.
    setTimeout(() => loadGalleries().then(() => {
      if (S.gallery && !S.galleries.some((g) => g.name === S.gallery)) {
        const next = S.galleries.some((g) => g.name === S.status.node) ? S.status.node : (S.galleries[0] || {}).name;
        if (next) selectGallery(next); else { S.gallery = null; S.items = []; renderGrid(); }
      }
    }).catch(() => {}), 0);
  }
}

// ---- Galleries renamed (in place) and deleted (with a toast that offers Undo) ----

function decorateGalleryRow(row, name) {
  const rename = el('button', 'row-action rename', '✎');
  rename.type = 'button';
  rename.title = 'Rename';
  rename.setAttribute('aria-label', `Rename ${name}`);
  rename.addEventListener('click', (e) => { e.stopPropagation(); renameInPlace(row, name); });
  const remove = el('button', 'row-action delete', '×');
  remove.type = 'button';
  remove.title = 'Delete gallery';
  remove.setAttribute('aria-label', `Delete ${name}`);
  remove.addEventListener('click', (e) => { e.stopPropagation(); deleteGallery(name); });
  row.append(rename, remove);
  // A double click on the name (its second click: the first one re-renders the sidebar).
  row.querySelector('.gallery-name').addEventListener('click', (e) => {
    if (e.detail >= 2) { e.stopPropagation(); renameInPlace(row, name); }
  });
  row.addEventListener('keydown', (e) => { if (e.key === 'F2') { e.preventDefault(); renameInPlace(row, name); } });
}

// Edits a text in place: an input over `label` until Enter (commit) or Escape/blur (cancel).
function editInPlace(label, value, maxLength, commit) {
  const input = el('input', 'in-place');
  input.value = value;
  input.maxLength = maxLength;
  input.setAttribute('aria-label', 'New name');
  label.replaceChildren(input);
  input.focus();
  input.select();
  let done = false;
  const finish = (save) => {
    if (done) return;
    done = true;
    label.textContent = value;
    const text = input.value.trim();
    if (save && text && text !== value) commit(text);
  };
  input.addEventListener('keydown', (e) => {
    e.stopPropagation();
    if (e.key === 'Enter') { e.preventDefault(); finish(true); }
    else if (e.key === 'Escape') { e.preventDefault(); finish(false); }
  });
  input.addEventListener('click', (e) => e.stopPropagation());
  input.addEventListener('blur', () => finish(true));
  return input;
}

function renameInPlace(row, name) {
  row.draggable = false;
  editInPlace(row.querySelector('.gallery-name'), name, 255, async (newName) => {
    try {
      const reply = await api('POST', '/api/galleries/rename', { gallery: name, name: newName });
      recordUndo(reply, reply.message, false);
      if (S.gallery === name) S.gallery = newName;
      await loadGalleries();
      if (S.gallery === newName) await selectGallery(newName);
    } catch (error) {
      toast(`Cannot rename “${name}”: ${error.message}`, 'error');
      renderGalleries();
    }
  });
}

async function deleteGallery(name) {
  try {
    const reply = await api('POST', '/api/galleries/delete', { gallery: name });
    recordUndo(reply, reply.message, true);
    await loadGalleries();
    if (S.gallery === name) {
      const next = S.galleries.some((g) => g.name === S.status.node) ? S.status.node : (S.galleries[0] || {}).name;
      if (next) await selectGallery(next);
    }
    refreshTrashSoon();
  } catch (error) {
    toast(`Cannot delete “${name}”: ${error.message}`, 'error');
  }
}

// ---- A title edited in place: double-click a caption, or F2 on a tile ----

function editTitle(id) {
  const tile = S.tiles.get(id);
  const item = S.byId.get(id);
  if (!tile || !item) return;
  tile.draggable = false;
  editInPlace(tile.querySelector('.caption'), item.title == null ? '' : String(item.title), 1024, async (title) => {
    try {
      const reply = await api('POST', '/api/items/update', { item: id, field: 'title', value: title });
      recordUndo(reply, reply.message || 'Changed the title of 1 item', false);
    } catch (error) {
      toast(`Cannot change the title: ${error.message}`, 'error');
    }
  }).addEventListener('blur', () => { tile.draggable = true; });
}

// In the viewer, at every width (a phone's grid shows no captions): its pencil, or F2.
function editViewerTitle() {
  const id = V.id;
  const item = S.byId.get(id);
  if (!item || item.state === 'placeholder') return;
  editInPlace(V.title, item.title == null ? '' : String(item.title), 1024, async (title) => {
    try {
      const reply = await api('POST', '/api/items/update', { item: id, field: 'title', value: title });
      recordUndo(reply, reply.message || 'Changed the title of 1 item', false);
      if (V.id === id) V.title.textContent = title;
    } catch (error) {
      toast(`Cannot change the title: ${error.message}`, 'error');
    }
  });
}

function wireTrashPlace() {
  const trash = $('trash');
  trash.setAttribute('role', 'button');
  trash.tabIndex = 0;
  trash.setAttribute('aria-label', 'Trash');
  trash.addEventListener('click', () => openTrash());
  trash.addEventListener('keydown', (e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); openTrash(); } });
  // In the capture phase: a double click on a caption edits the title and goes no further (a double
  // click elsewhere on a tile is the grid's own).
  $('grid').addEventListener('dblclick', (e) => {
    const caption = e.target.closest('.caption');
    const tile = caption && caption.closest('.tile');
    if (tile) { e.stopPropagation(); editTitle(tile.dataset.id); }
  }, true);
  $('grid').addEventListener('keydown', (e) => { if (e.key === 'F2' && S.focusId) { e.preventDefault(); editTitle(S.focusId); } });
  loadTrash().then(() => { if (location.hash === '#trash') openTrash(); }).catch(() => {});
}

document.addEventListener('DOMContentLoaded', wireTrashPlace);
