// ---- Phone: the sidebar as a drawer, and touch ----
// Tap a tile to select it (or take it out of the selection), long-press a tile to drag it (and the
// rest of the selection) to a new place, pinch the grid to zoom.

const PHONE = window.matchMedia('(max-width: 720px)');
const LONG_PRESS_MS = 450;
const TOUCH = { press: null, drag: null, pinch: null };

// Marks the drawer as moving for its slide (CSS animates only then).
function slideDrawer() {
  document.body.classList.add('drawer-moving');
  clearTimeout(slideDrawer.timer);
  slideDrawer.timer = setTimeout(() => document.body.classList.remove('drawer-moving'), 260);
}

function openDrawer() {
  slideDrawer();
  document.body.classList.add('drawer-open');
  $('scrim').hidden = false;
  $('drawer-open').setAttribute('aria-expanded', 'true');
  const row = $('galleries').querySelector('.gallery-row[tabindex="0"]') || $('galleries').querySelector('.gallery-row');
  // The drawer slides in; focus it once it is visible.
  setTimeout(() => (row || $('drawer-close')).focus({ preventScroll: true }), 30);
  T.drawerOpen = true;
}

function closeDrawer(returnFocus) {
  if (!document.body.classList.contains('drawer-open')) return;
  slideDrawer();
  document.body.classList.remove('drawer-open');
  $('scrim').hidden = true;
  $('drawer-open').setAttribute('aria-expanded', 'false');
  if (returnFocus) $('drawer-open').focus({ preventScroll: true });
  T.drawerOpen = false;
}

function wireDrawer() {
  $('drawer-open').addEventListener('click', openDrawer);
  $('drawer-close').addEventListener('click', () => closeDrawer(true));
  $('scrim').addEventListener('click', () => closeDrawer(true));
  document.addEventListener('keydown', (e) => { if (e.key === 'Escape') closeDrawer(true); });
  // Choosing a gallery in the drawer closes it.
  $('galleries').addEventListener('click', () => { if (PHONE.matches) closeDrawer(false); });
  $('galleries').addEventListener('keydown', (e) => {
    if (PHONE.matches && (e.key === 'Enter' || e.key === ' ')) setTimeout(() => closeDrawer(true), 0);
  });
  PHONE.addEventListener('change', () => { if (!PHONE.matches) closeDrawer(false); });
}

// ---- Touch on the grid ----

function touchDistance(touches) {
  return Math.hypot(touches[0].clientX - touches[1].clientX, touches[0].clientY - touches[1].clientY);
}

function cancelPress() {
  if (TOUCH.press) { clearTimeout(TOUCH.press.timer); TOUCH.press.tile.draggable = true; }
  TOUCH.press = null;
}

// Where the pinch holds the grid: the row under the fingers' midpoint (its first item, and how far
// down the row the midpoint is), kept under the fingers as the tiles grow or shrink.
function pinchAnchor(touches) {
  const y = (touches[0].clientY + touches[1].clientY) / 2;
  if (!L.items.length) return { y, id: null, within: 0 };
  const gridY = y - $('grid').getBoundingClientRect().top;
  const first = L.rows[rowAt(gridY)];
  return { y, id: L.items[first].id, within: (gridY - L.ys[first]) / (L.h + CAPTION + GAP) };
}

function keepPinchAnchor(anchor) {
  const index = anchor.id === null ? -1 : indexOfId(anchor.id);
  if (index < 0) return;
  const rowY = $('grid').getBoundingClientRect().top + L.ys[index] + anchor.within * (L.h + CAPTION + GAP);
  $('scroller').scrollTop += rowY - anchor.y;
  renderWindow();
}

function onTouchStart(e) {
  if (e.touches.length === 2 && !TOUCH.drag) {
    cancelPress();
    TOUCH.pinch = { distance: Math.max(1, touchDistance(e.touches)), zoom: L.h, anchor: pinchAnchor(e.touches) };
    e.preventDefault();
    return;
  }
  if (e.touches.length !== 1) { cancelPress(); return; }
  const tile = e.target.closest && e.target.closest('.tile');
  if (!tile || tile.classList.contains('placeholder') || e.target.closest('.cancel')) return;
  const touch = e.touches[0];
  tile.draggable = false;   // the long press is ours, not the browser's own touch drag
  TOUCH.press = { id: tile.dataset.id, tile, x: touch.clientX, y: touch.clientY,
                  timer: setTimeout(() => beginTouchDrag(touch.clientX, touch.clientY), LONG_PRESS_MS) };
}

function onTouchMove(e) {
  if (TOUCH.pinch && e.touches.length >= 2) {
    e.preventDefault();
    setZoom(TOUCH.pinch.zoom * touchDistance(e.touches) / TOUCH.pinch.distance);
    keepPinchAnchor(TOUCH.pinch.anchor);
    T.pinched = L.h;
    return;
  }
  const touch = e.touches[0];
  if (TOUCH.drag) {
    e.preventDefault();   // the finger drags the tiles, not the page
    moveTouchDrag(touch.clientX, touch.clientY);
    return;
  }
  if (TOUCH.press && Math.hypot(touch.clientX - TOUCH.press.x, touch.clientY - TOUCH.press.y) > 10) cancelPress();  // a scroll
}

function onTouchEnd(e) {
  if (TOUCH.pinch) {
    if (e.touches.length < 2) TOUCH.pinch = null;
    e.preventDefault();
    return;
  }
  if (TOUCH.drag) {
    e.preventDefault();   // no click after a drag
    const touch = e.changedTouches[0];
    finishTouchDrag(touch.clientX, touch.clientY, e.type === 'touchend');
    return;
  }
  cancelPress();
}

// The long press fired: the tile joins the selection and the selection follows the finger.
function beginTouchDrag(x, y) {
  const press = TOUCH.press;
  TOUCH.press = null;
  if (press) press.tile.draggable = true;
  if (!press || !S.byId.has(press.id)) return;
  if (!S.selected.has(press.id)) setSelection([...S.selected, press.id], press.id);
  if (viewActive()) { refusedWhileViewed(); return; }
  const ids = selectedInOrder().filter((id) => S.byId.get(id).state !== 'placeholder');
  if (!ids.length) return;
  const ghost = el('div', 'touch-ghost', ids.length === 1 ? (S.byId.get(ids[0]).title || '1 item') : `${ids.length} items`);
  document.body.appendChild(ghost);
  TOUCH.drag = { ids, ghost, x, y };
  for (const id of ids) { const tile = S.tiles.get(id); if (tile) tile.classList.add('touch-dragging'); }
  if (navigator.vibrate) { try { navigator.vibrate(15); } catch (_) { /* not allowed */ } }
  T.touchDrag = ids.length;
  moveTouchDrag(x, y);
}

function moveTouchDrag(x, y) {
  const drag = TOUCH.drag;
  drag.x = x; drag.y = y;
  drag.ghost.style.transform = `translate(${Math.round(x - 20)}px, ${Math.round(y - 48)}px)`;
  if (phoneDragOver(x, y)) return;   // over the drawer (phone.js)
  const box = $('scroller').getBoundingClientRect();
  // Near the top or bottom edge the grid scrolls under the finger.
  if (y < box.top + 40) $('scroller').scrollTop -= 24;
  else if (y > box.bottom - 40) $('scroller').scrollTop += 24;
  if (x >= box.left && x <= box.right && y >= box.top && y <= box.bottom) showIndicator(insertionAt({ clientX: x, clientY: y }));
  else hideIndicator();
}

async function finishTouchDrag(x, y, dropped) {
  const drag = TOUCH.drag;
  TOUCH.drag = null;
  drag.ghost.remove();
  hideIndicator();
  for (const tile of document.querySelectorAll('.tile.touch-dragging')) tile.classList.remove('touch-dragging');
  T.touchDrag = 0;
  if (phoneDrop(drag.ids, x, y, dropped)) return;   // on a gallery or the Trash in the drawer (phone.js)
  const box = $('scroller').getBoundingClientRect();
  if (!dropped || x < box.left || x > box.right || y < box.top || y > box.bottom) return;
  const spot = insertionAt({ clientX: x, clientY: y }).index;
  // Count the destination without the moved items, as `gallery move` does.
  const index = S.items.slice(0, spot).filter((item) => !drag.ids.includes(item.id)).length;
  const before = S.items.slice(0, S.items.findIndex((item) => item.id === drag.ids[0])).filter((item) => !drag.ids.includes(item.id)).length;
  const first = S.items.findIndex((item) => item.id === drag.ids[0]);
  const contiguous = drag.ids.every((id, n) => (S.items[first + n] || {}).id === id);
  if (contiguous && index === before) return;   // put back where it was
  await moveItems(drag.ids, S.gallery, index);
}

// A tap (a click from a touch), as in a phone's photo app: with nothing selected it opens the picture
// (viewer.js) and selects nothing; once a long press has selected something, a tap adds the tile to
// the selection or takes it out (phones have no Ctrl).
function onTouchClick(e) {
  if (e.pointerType !== 'touch') return;
  const tile = e.target.closest('.tile');
  if (!tile || e.target.closest('.cancel')) return;
  if (!S.selected.size) {
    const id = tile.dataset.id;
    setTimeout(() => { if (S.selected.size === 1 && S.selected.has(id)) setSelection([], null); }, 0);
    return;
  }
  e.stopPropagation();
  clickTile(tile.dataset.id, { ctrlKey: true });
}

document.addEventListener('DOMContentLoaded', () => {
  wireDrawer();
  const scroller = $('scroller');
  scroller.addEventListener('touchstart', onTouchStart, { passive: false });
  scroller.addEventListener('touchmove', onTouchMove, { passive: false });
  scroller.addEventListener('touchend', onTouchEnd, { passive: false });
  scroller.addEventListener('touchcancel', onTouchEnd, { passive: false });
  scroller.addEventListener('contextmenu', (e) => { if (e.target.closest('.tile')) e.preventDefault(); });
  $('grid').addEventListener('click', onTouchClick, true);
});
