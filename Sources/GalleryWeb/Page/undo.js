// ---- Undo and redo: Ctrl/Cmd+Z, Shift+Ctrl/Cmd+Z (or Ctrl+Y), and a toast with Undo ----
// Every action that can be undone answers with `undo`, the ID of the node's journal entry that
// POST /api/undo takes back (http-api.md, "Trash and undo"). This tab keeps its own stacks of them:
// an undo is new ops on the node, never a rewrite of history; what someone else changed since is
// left as it is, and the toast says so.

const U = { undo: [], redo: [] };
T.undo = U;

// Records what an action answered; with `toastIt`, says it in a toast with an Undo button.
function recordUndo(reply, label, toastIt) {
  if (!reply) return;
  if (reply.undo == null) {
    // Nothing to undo (a loading placeholder deleted: its transfer cancelled); still say what happened.
    if (toastIt && reply.message) toast(reply.message);
    return;
  }
  const entry = { entry: reply.undo, label: label || reply.message || 'Change' };
  U.undo.push(entry);
  U.redo = [];
  if (toastIt) entry.toast = toastWithAction(entry.label, 'Undo', () => undoEntry(entry, false));
}

// A toast with one action button; it stays longer than a plain one, and the button ends it.
function toastWithAction(message, action, run) {
  T.toasts.push(message);
  const box = el('div', 'toast undo-toast');
  box.setAttribute('role', 'status');
  box.appendChild(el('span', 'toast-text', message));
  const button = el('button', 'toast-action', action);
  button.type = 'button';
  button.addEventListener('click', () => { box.remove(); run(); });
  box.appendChild(button);
  $('toasts').appendChild(box);
  setTimeout(() => box.classList.add('leaving'), 8600);
  setTimeout(() => box.remove(), 9000);
  return box;
}

// Takes an entry off its stack (wherever it stands there) and sends its undo (or redo).
async function undoEntry(entry, redo) {
  const stack = redo ? U.redo : U.undo;
  const at = stack.indexOf(entry);
  if (at < 0) return;   // undone already (by Ctrl+Z, or a click on its toast)
  stack.splice(at, 1);
  if (entry.toast) entry.toast.remove();
  try {
    const reply = await api('POST', '/api/undo', { entry: entry.entry, redo });
    if (reply.undo != null) (redo ? U.undo : U.redo).push({ entry: reply.undo, label: entry.label });
    toast(reply.message, reply.skipped && reply.skipped.length ? 'error' : undefined);
    refreshTrashSoon();
  } catch (error) {
    toast(`Cannot ${redo ? 'redo' : 'undo'}: ${error.message}`, 'error');
  }
}

function undoLast(redo) {
  const stack = redo ? U.redo : U.undo;
  if (!stack.length) { toast(redo ? 'Nothing to redo' : 'Nothing to undo'); return; }
  undoEntry(stack[stack.length - 1], redo);
}

function onUndoKey(e) {
  if (!(e.ctrlKey || e.metaKey) || e.altKey) return;
  const key = e.key.toLowerCase();
  if (key !== 'z' && key !== 'y') return;
  // A text field keeps its own undo.
  const target = e.target;
  if (target && (target.tagName === 'INPUT' || target.tagName === 'TEXTAREA' || target.isContentEditable)) return;
  e.preventDefault();
  undoLast(key === 'y' || e.shiftKey);
}

document.addEventListener('keydown', onUndoKey);
