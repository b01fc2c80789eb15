// ---- Rubber-band selection: press on the grid's background and drag a rectangle ----
// Every tile the rectangle touches is selected (added to the selection with Shift, Ctrl or Cmd),
// counted from the layout, so tiles scrolled out of the DOM are selected too.

const BAND = { start: null, additive: false, base: null, moved: false, swallowClick: false };

function gridPoint(e) {
  const box = $('grid').getBoundingClientRect();
  return { x: e.clientX - box.left, y: e.clientY - box.top };
}

function onBandDown(e) {
  if (e.button !== 0 || e.pointerType === 'touch') return;
  if (e.target.closest('.tile, button, input, select, a, #empty')) return;
  if (!e.target.closest('#scroller')) return;
  e.preventDefault();   // no text selection; the grid takes the focus instead
  $('grid').focus({ preventScroll: true, focusVisible: false });
  BAND.start = gridPoint(e);
  BAND.additive = e.shiftKey || e.ctrlKey || e.metaKey;
  BAND.base = BAND.additive ? new Set(S.selected) : new Set();
  BAND.moved = false;
  window.addEventListener('pointermove', onBandMove);
  window.addEventListener('pointerup', onBandUp, { once: true });
}

function onBandMove(e) {
  if (!BAND.start) return;
  const point = gridPoint(e);
  const left = Math.min(BAND.start.x, point.x), right = Math.max(BAND.start.x, point.x);
  const top = Math.min(BAND.start.y, point.y), bottom = Math.max(BAND.start.y, point.y);
  if (!BAND.moved && right - left < 4 && bottom - top < 4) return;
  BAND.moved = true;
  $('scroller').classList.add('banding');
  const band = $('band'), grid = $('grid');
  band.hidden = false;
  band.style.transform = `translate(${Math.round(grid.offsetLeft + left)}px, ${Math.round(grid.offsetTop + top)}px)`;
  band.style.width = `${Math.round(right - left)}px`;
  band.style.height = `${Math.round(bottom - top)}px`;
  const hit = new Set(BAND.base);
  if (L.items.length && bottom >= 0 && top <= L.height) {
    const tileHeight = L.h + CAPTION;
    for (let row = rowAt(Math.max(0, top - tileHeight)); row < L.rows.length; row++) {
      const first = L.rows[row];
      if (L.ys[first] > bottom) break;
      if (L.ys[first] + tileHeight < top) continue;
      for (let i = first; i < rowEnd(row); i++) {
        if (L.xs[i] <= right && L.xs[i] + L.ws[i] >= left) hit.add(L.items[i].id);
      }
    }
  }
  setSelection(hit);
  T.banded = hit.size;
}

function onBandUp() {
  window.removeEventListener('pointermove', onBandMove);
  if (BAND.moved) {
    BAND.swallowClick = true;     // the click that ends the band must not clear what it selected
    setTimeout(() => { BAND.swallowClick = false; }, 0);
    const first = L.items.find((item) => S.selected.has(item.id));
    if (first) S.anchor = first.id;
  }
  BAND.start = null;
  BAND.moved = false;
  $('band').hidden = true;
  $('scroller').classList.remove('banding');
}

document.addEventListener('DOMContentLoaded', () => {
  $('scroller').addEventListener('pointerdown', onBandDown);
  window.addEventListener('click', (e) => {
    if (BAND.swallowClick) { e.stopPropagation(); e.preventDefault(); BAND.swallowClick = false; }
  }, true);
});
