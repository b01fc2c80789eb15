// ---- Keyboard in the sidebar, the Add photos picker, and uploads that keep their shape ----

// The sidebar's gallery list is one tab stop (the selected gallery): arrows, Home and End move the
// focus along it, Enter or Space opens the focused gallery.
function onGalleryListKey(e) {
  const rows = [...$('galleries').querySelectorAll('.gallery-row')];
  const at = rows.indexOf(document.activeElement);
  if (at < 0) return;
  const next = { ArrowDown: at + 1, ArrowUp: at - 1, Home: 0, End: rows.length - 1 }[e.key];
  if (next === undefined) return;
  e.preventDefault();
  focusGalleryRow(rows[Math.max(0, Math.min(rows.length - 1, next))]);
}

function focusGalleryRow(row) {
  for (const other of $('galleries').querySelectorAll('.gallery-row')) other.tabIndex = other === row ? 0 : -1;
  row.focus();
}

// After the list is drawn again (renderGalleries): one tab stop, and the focus back on the row it was on.
function settleGalleryFocus(focusedName) {
  const rows = [...$('galleries').querySelectorAll('.gallery-row')];
  if (!rows.length) return;
  const stop = rows.find((row) => row.dataset.gallery === focusedName)
    || rows.find((row) => row.getAttribute('aria-selected') === 'true') || rows[0];
  for (const row of rows) row.tabIndex = row === stop ? 0 : -1;
  if (focusedName !== undefined && focusedName !== null && stop.dataset.gallery === focusedName) stop.focus({ preventScroll: true });
}

// The gallery whose row has the focus, if one has it (before the list is drawn again).
function focusedGalleryName() {
  const row = document.activeElement && document.activeElement.closest && document.activeElement.closest('.gallery-row');
  return row ? row.dataset.gallery : null;
}

// ---- Add photos: a file picker at every width, through the same upload path as a drop ----

function wirePicker() {
  const picker = $('picker');
  picker.addEventListener('change', async () => {
    const files = [...picker.files];
    picker.value = '';
    if (!files.length) return;
    if (!S.gallery) { toast('Create a gallery first, then add photos to it.', 'error'); return; }
    T.picked = (T.picked || 0) + files.length;
    await uploadFiles(files, S.gallery, null);
  });
}

// ---- Uploads keep their aspect ratio at once ----
// The node learns a picture's size only when its bytes are in; the page measures each file before
// announcing it, and the placeholder (then the picture) is laid out with that ratio until the node
// says otherwise.

const localAspects = new Map();   // item ID -> width / height measured here
// Files announced, not yet answered: their placeholders can arrive on the event stream before the
// announcement's reply names their IDs, so they are known by file name and size meanwhile.
const announcedAspects = new Map();   // `name\u0000size` -> width / height

function localAspect(item) {
  const known = localAspects.get(item.id);
  if (known) return known;
  if (item.state !== 'placeholder' || !announcedAspects.size) return 0;
  return announcedAspects.get(`${item.title}\u0000${item.bytes}`) || 0;
}

// Before announcing `files` whose shapes are `ratios`.
function announceAspects(files, ratios) {
  files.forEach((file, index) => { if (ratios[index]) announcedAspects.set(`${file.name}\u0000${file.size}`, ratios[index]); });
}

// Width / height of each image file (null when it cannot be decoded within 2 s; at most 200 measured).
async function measureAspects(files) {
  return Promise.all(files.map(async (file, index) => {
    if (index >= 200 || typeof createImageBitmap !== 'function') return null;
    let timer;
    const timeout = new Promise((resolve) => { timer = setTimeout(() => resolve(null), 2000); });
    const measured = createImageBitmap(file).then((bitmap) => {
      const ratio = bitmap.width > 0 && bitmap.height > 0 ? bitmap.width / bitmap.height : null;
      bitmap.close();
      return ratio;
    }, () => null);
    const ratio = await Promise.race([measured, timeout]);
    clearTimeout(timer);
    return ratio;
  }));
}

function rememberAspects(files, itemIds, ratios) {
  for (const file of files) announcedAspects.delete(`${file.name}\u0000${file.size}`);
  let placed = false;
  itemIds.forEach((id, index) => {
    if (!ratios[index]) return;
    localAspects.set(id, ratios[index]);
    if (S.byId.has(id)) placed = true;
  });
  if (placed) { layout(); renderWindow(); }
}

document.addEventListener('DOMContentLoaded', () => {
  $('galleries').addEventListener('keydown', onGalleryListKey);
  wirePicker();
});
