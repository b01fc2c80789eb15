// ---- Search and sort: a view of the gallery shown, never a reorder ----
// The grid lays out `shownItems()`: the gallery's own order (S.items) when no view is on, else the
// items whose title matches the search, sorted by date added (newest first), title or size (largest
// first). While a view is on, reordering (drag within the grid, Alt+arrows, long-press) is off and
// the page says so; dropping files or items still adds them, at the gallery's end.

const VIEW = { query: '', sort: '' };
const titleCollator = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });

function viewActive() { return VIEW.query !== '' || VIEW.sort !== ''; }

// An item's ID is `counter@replica`: the counter of the op that added it, so a later addition has a larger one.
function addedKey(item) {
  const counter = parseInt(String(item.id), 10);
  return Number.isFinite(counter) ? counter : 0;
}

const SORTS = {
  added: (a, b) => addedKey(b) - addedKey(a),
  title: (a, b) => titleCollator.compare(String(a.title || ''), String(b.title || '')),
  size: (a, b) => (Number(b.bytes) || 0) - (Number(a.bytes) || 0),
};

function shownItems() {
  if (!viewActive()) return S.items;
  const query = VIEW.query.toLocaleLowerCase();
  const matching = query ? S.items.filter((item) => String(item.title || '').toLocaleLowerCase().includes(query)) : S.items;
  const compare = SORTS[VIEW.sort];
  if (!compare) return matching;
  // Stable: equal keys keep the gallery's order.
  return matching.map((item, index) => [item, index]).sort(([a, i], [b, j]) => compare(a, b) || i - j).map(([item]) => item);
}

// Why reordering is off, or '' when it is on.
function viewNote() {
  const sortName = { added: 'date added', title: 'title', size: 'size' }[VIEW.sort];
  if (VIEW.query && sortName) return `Searching, sorted by ${sortName}: drag to reorder is off (clear the search, choose Gallery order).`;
  if (VIEW.query) return 'Searching: drag to reorder is off until the search is cleared.';
  if (sortName) return `Sorted by ${sortName}: a view, the gallery keeps its order. Drag to reorder is off (choose Gallery order).`;
  return '';
}

function refusedWhileViewed() {
  toast(viewNote() || 'Reordering is off while a view is on.', 'error');
}

function applyView() {
  VIEW.query = $('search').value.trim();
  VIEW.sort = $('sort').value;
  $('view-note').textContent = viewNote();
  document.body.classList.toggle('viewing', viewActive());
  T.view = { query: VIEW.query, sort: VIEW.sort };
  $('scroller').scrollTop = 0;
  layout();
  renderWindow();
  updateCount();
}

function wireView() {
  $('search').addEventListener('input', applyView);
  $('search').addEventListener('keydown', (e) => { if (e.key === 'Escape' && e.target.value) { e.target.value = ''; applyView(); } });
  $('sort').addEventListener('change', applyView);
}

document.addEventListener('DOMContentLoaded', wireView);
