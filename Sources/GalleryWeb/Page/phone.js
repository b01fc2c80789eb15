// ---- Phone: the open drawer keeps the focus, tiles dragged by touch into the drawer's galleries,
// and the "N selected" bar ----
// The drawer is modal while open: Tab and Shift+Tab cycle through its controls, Escape closes it and
// gives the focus back to the menu button (touch.js). A long-press drag that reaches the menu button
// or the screen's left edge opens the drawer; lifting the finger on a gallery moves the tiles there,
// on the Trash moves them to the Trash. With items selected on a phone a bar at the bottom names how
// many and offers Delete (to the Trash), Move to… (a gallery chosen in the drawer) and Clear.

const PHONE_DRAG = { spring: null, target: null };
const SPRING_MS = 400;

// The drawer's controls a Tab can reach, in order.
function drawerFocusables() {
  return [...$('sidebar').querySelectorAll('button, input, select, a[href], [tabindex]')]
    .filter((e) => e.tabIndex >= 0 && !e.disabled && e.getClientRects().length > 0);
}

function trapDrawerFocus(e) {
  if (e.key !== 'Tab' || !T.drawerOpen) return;
  const stops = drawerFocusables();
  if (!stops.length) return;
  const first = stops[0], last = stops[stops.length - 1];
  const inside = $('sidebar').contains(document.activeElement);
  if (e.shiftKey && (!inside || document.activeElement === first)) { e.preventDefault(); last.focus(); }
  else if (!e.shiftKey && (!inside || document.activeElement === last)) { e.preventDefault(); first.focus(); }
}

// ---- Touch drags into the drawer (called by touch.js while a long-press drag moves and ends) ----

function drawerTargetAt(x, y) {
  const hit = document.elementFromPoint(x, y);
  if (!hit || !$('sidebar').contains(hit)) return null;
  return hit.closest('.gallery-row, #trash');
}

function markDrawerTarget(target) {
  if (PHONE_DRAG.target === target) return;
  if (PHONE_DRAG.target) PHONE_DRAG.target.classList.remove('drop-target');
  PHONE_DRAG.target = target;
  if (target) target.classList.add('drop-target');
  T.touchTarget = target ? (target.dataset.gallery || 'trash') : null;
}

function cancelSpring() { clearTimeout(PHONE_DRAG.spring); PHONE_DRAG.spring = null; }

// The finger moved to (x, y) with tiles: true when the drawer takes the drag (no insertion mark then).
function phoneDragOver(x, y) {
  if (!PHONE.matches) return false;
  if (T.drawerOpen) {
    cancelSpring();
    const box = $('sidebar').getBoundingClientRect();
    if (x > box.right) { markDrawerTarget(null); return false; }
    markDrawerTarget(drawerTargetAt(x, y));
    hideIndicator();
    return true;
  }
  const button = $('drawer-open').getBoundingClientRect();
  const overButton = x >= button.left && x <= button.right && y >= button.top && y <= button.bottom;
  if (overButton || x <= 12) {
    // Held there a moment (not merely passed through), the drawer springs open.
    if (!PHONE_DRAG.spring) PHONE_DRAG.spring = setTimeout(() => { PHONE_DRAG.spring = null; if (TOUCH.drag) openDrawer(); }, SPRING_MS);
  } else {
    cancelSpring();
  }
  return false;
}

// The finger lifted at (x, y) with `ids`: true when the drawer took the drop (or the drag ended in it).
function phoneDrop(ids, x, y, dropped) {
  cancelSpring();
  const target = PHONE_DRAG.target;
  markDrawerTarget(null);
  if (!T.drawerOpen) return false;
  const box = $('sidebar').getBoundingClientRect();
  if (x > box.right) return false;
  closeDrawer(false);
  if (!dropped || !target) return true;
  if (target.id === 'trash') deleteItems(ids).then(() => setSelection([], null));
  else if (target.dataset.gallery !== S.gallery) moveItems(ids, target.dataset.gallery, null).then(() => setSelection([], null));
  return true;
}

// ---- The "N selected" bar ----

function renderSelectionBar() {
  const bar = $('selection-bar');
  const count = S.selected.size;
  const show = PHONE.matches && count > 0 && !TR.open && !viewerShown();
  if (bar.hidden === !show && (!show || bar.dataset.count === String(count))) return;
  bar.hidden = !show;
  bar.dataset.count = String(count);
  document.body.classList.toggle('selection-bar-shown', show);
  $('selection-count').textContent = count === 1 ? '1 selected' : `${count} selected`;
  T.selectionBar = show ? count : 0;
}

function viewerShown() { return !!document.querySelector('.viewer:not([hidden])'); }

// Move to…: the drawer opens to choose the gallery; a tap there moves the selection instead of showing it.
function chooseDestination() {
  if (!S.selected.size) return;
  document.body.classList.add('choosing-destination');
  $('drawer-title').textContent = `Move ${S.selected.size === 1 ? '1 item' : S.selected.size + ' items'} to…`;
  openDrawer();
}

function stopChoosing() {
  document.body.classList.remove('choosing-destination');
  $('drawer-title').textContent = 'Galleries';
}

function onDestinationChosen(e) {
  if (!document.body.classList.contains('choosing-destination')) return;
  if (e.type === 'keydown' && e.key !== 'Enter' && e.key !== ' ') return;
  const row = e.target.closest('.gallery-row');
  if (!row) return;
  e.preventDefault();
  e.stopPropagation();
  const ids = selectedInOrder();
  stopChoosing();
  closeDrawer(true);
  if (row.dataset.gallery !== S.gallery) moveItems(ids, row.dataset.gallery, null).then(() => setSelection([], null));
}

function wireSelectionBar() {
  $('selection-delete').addEventListener('click', () => { const ids = selectedInOrder(); deleteItems(ids).then(() => setSelection([], null)); });
  $('selection-move').addEventListener('click', chooseDestination);
  $('selection-clear').addEventListener('click', () => setSelection([], null));
  $('galleries').addEventListener('click', onDestinationChosen, true);
  $('galleries').addEventListener('keydown', onDestinationChosen, true);
  for (const id of ['scrim', 'drawer-close']) $(id).addEventListener('click', stopChoosing);
  document.addEventListener('keydown', (e) => { if (e.key === 'Escape') stopChoosing(); });
  // The selection changes in many places (taps, the keyboard, a gallery shown, items deleted by
  // others): the bar follows the tiles' aria-selected and the grid's tiles.
  new MutationObserver(renderSelectionBar).observe($('grid'), { subtree: true, childList: true, attributeFilter: ['aria-selected'] });
  PHONE.addEventListener('change', renderSelectionBar);
}

document.addEventListener('DOMContentLoaded', () => {
  document.addEventListener('keydown', trapDrawerFocus);
  wireSelectionBar();
});
