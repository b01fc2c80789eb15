// ---- Members: Invite (a single-use code, as text and as a QR code) and the member list with Revoke ----
// The sidebar's Invite asks the node for a code (POST /api/invite) and shows it in a modal dialog with
// Copy, its expiry, the command a newcomer runs, and a QR code (qr.js). Members lists the space's
// members (GET /api/members); Revoke asks first, naming the member, then POST /api/members/revoke.

const MB = { members: [], invite: null };
T.members = MB;

// A modal <dialog> titled `title`, removed from the page when it closes; its body is `dialog.body`.
function memberDialog(id, title) {
  const dialog = document.createElement('dialog');
  dialog.id = id;
  dialog.className = 'confirm sheet';
  dialog.setAttribute('aria-labelledby', id + '-title');
  const heading = el('h2', null, title);
  heading.id = id + '-title';
  const body = el('div', 'sheet-body');
  const close = el('button', 'secondary', 'Close');
  close.type = 'button';
  close.id = id + '-close';
  close.addEventListener('click', () => dialog.close('close'));
  const buttons = el('div', 'buttons');
  buttons.append(close);
  dialog.append(heading, body, buttons);
  dialog.body = body;
  dialog.buttons = buttons;
  dialog.addEventListener('close', () => dialog.remove());
  if (typeof closeDrawer === 'function') closeDrawer(false);   // touch.js: the phone's drawer
  document.body.appendChild(dialog);
  dialog.showModal();
  return dialog;
}

// Copies `text`: the Clipboard API, else the selection and execCommand; says which in `status`.
async function copyText(text, status) {
  try {
    await navigator.clipboard.writeText(text);
  } catch (_) {
    const area = el('textarea', 'visually-hidden');
    area.value = text;
    status.parentNode.appendChild(area);
    area.select();
    const copied = document.execCommand('copy');
    area.remove();
    if (!copied) { status.textContent = 'Cannot copy here: select the text and copy it.'; return; }
  }
  status.textContent = 'Copied.';
  MB.copied = text;
}

// A line of selectable text (`code` element) with a Copy button and a status that reports the copy.
function copyableLine(id, label, text) {
  const row = el('div', 'copyable');
  const code = el('code', 'copy-text', text);
  code.id = id;
  const button = el('button', 'secondary', 'Copy');
  button.type = 'button';
  button.id = id + '-copy';
  button.setAttribute('aria-label', 'Copy ' + label);
  const status = el('span', 'copy-status');
  status.setAttribute('role', 'status');
  button.addEventListener('click', () => copyText(text, status));
  row.append(code, button, status);
  return row;
}

function describeTime(ms) {
  return new Date(ms).toLocaleString([], { dateStyle: 'medium', timeStyle: 'short' });
}

async function openInvite() {
  if (MB.asking || $('invite')) return;        // one invitation per click, one dialog at a time
  MB.asking = true;
  let reply;
  try {
    reply = await api('POST', '/api/invite', {});
  } catch (error) {
    toast(`Cannot make an invitation: ${error.message}`, 'error');
    return;
  } finally {
    MB.asking = false;
  }
  MB.invite = reply;
  const dialog = memberDialog('invite', 'Invite a node');
  const minutes = Math.max(1, Math.round((reply.expires - Date.now()) / 60000));
  const note = el('p', null, 'The new node joins this space with this code. It works once, until '
    + `${describeTime(reply.expires)} (${minutes} minute${minutes === 1 ? '' : 's'}); share it only with that node.`);
  note.id = 'invite-expiry';
  const picture = el('figure', 'qr');
  try {
    const symbol = QR.encode(reply.code);
    // A whole number of CSS pixels per module, as large as fits (at most 6).
    const module = Math.max(2, Math.min(6, Math.floor(Math.min(300, innerWidth - 72) / (symbol.size + 8))));
    const svg = QR.svg(symbol, module);
    svg.id = 'invite-qr';
    svg.setAttribute('role', 'img');
    svg.setAttribute('aria-label', 'The invitation code as a QR code');
    svg.dataset.version = symbol.version;
    svg.dataset.level = symbol.level;
    svg.dataset.mask = symbol.mask;
    picture.append(svg);
  } catch (error) {
    picture.append(el('p', null, `No QR code: ${error.message}. Copy the code below instead.`));
  }
  const command = `gallery serve DIR --name NAME --join ${reply.code}`;
  const commandNote = el('p', 'hint', 'On the new node (DIR a new folder, NAME its name), run:');
  dialog.body.append(note, picture, el('h3', null, 'Code'), copyableLine('invite-code', 'the code', reply.code),
                     commandNote, copyableLine('invite-command', 'the command', command));
  $('invite-code-copy').focus();
}

async function loadMembers() {
  const reply = await api('GET', '/api/members');
  MB.members = reply.members;
  return reply.members;
}

// Who signed a record, as the node names it ("NAME [NODEID]"): the member's name as the list shows it
// now (looked up by node ID), the raw node ID only as a smaller detail after it.
function memberByline(signer) {
  const match = /^(.*) \[([^\]]*)\]$/.exec(String(signer));
  if (!match) return [el('span', 'member-by', String(signer))];
  const known = MB.members.find((member) => member.nodeID === match[2]);
  const name = el('span', 'member-by', known ? known.name : match[1]);
  const id = el('code', 'member-by-id', match[2]);
  id.title = 'node ID';
  return [name, ' ', id];
}

// One member: name (and "this node"), node ID, added when and by whom, revoked or a Revoke button.
function memberRow(member) {
  const row = el('li', 'member' + (member.revoked !== null ? ' revoked' : ''));
  row.dataset.node = member.nodeID;
  const name = el('span', 'member-name', member.name);
  const head = el('div', 'member-head');
  head.append(name);
  if (member.isSelf) head.append(el('span', 'member-badge', 'this node'));
  if (member.revoked !== null) head.append(el('span', 'member-badge revoked-badge', 'revoked'));
  const id = el('code', 'member-id', member.nodeID);
  const added = el('span', 'member-added', `Added ${describeTime(member.added)}`);
  if (member.addedBy === 'itself') added.append(' (founder or copied secret)');
  else added.append(' by ', ...memberByline(member.addedBy));
  row.append(head, id, added);
  if (member.revoked !== null) {
    const revoked = el('span', 'member-revoked', `Revoked ${describeTime(member.revoked)}`);
    if (member.revokedBy) revoked.append(' by ', ...memberByline(member.revokedBy));
    row.append(revoked);
  } else if (!member.isSelf) {
    const revoke = el('button', 'danger member-revoke', 'Revoke');
    revoke.type = 'button';
    revoke.setAttribute('aria-label', `Revoke ${member.name}`);
    revoke.addEventListener('click', () => confirmRevoke(member));
    row.append(revoke);
  }
  return row;
}

function renderMembers() {
  const list = $('members-list');
  if (!list) return;
  list.replaceChildren(...MB.members.map(memberRow));
}

async function openMembers() {
  if ($('members')) return;
  try {
    await loadMembers();
  } catch (error) {
    toast(`Cannot list the members: ${error.message}`, 'error');
    return;
  }
  const dialog = memberDialog('members', 'Members');
  const list = el('ul', 'members-list');
  list.id = 'members-list';
  list.setAttribute('aria-label', 'Members of this space');
  const invite = el('button', 'secondary', 'Invite…');
  invite.type = 'button';
  invite.addEventListener('click', () => { dialog.close('invite'); openInvite(); });
  dialog.body.append(list);
  dialog.buttons.prepend(invite);
  renderMembers();
  $('members-close').focus();
}

// Revoke asks first, naming the member: it cannot be undone.
function confirmRevoke(member) {
  const dialog = document.createElement('dialog');
  dialog.id = 'confirm-revoke';
  dialog.className = 'confirm';
  dialog.setAttribute('aria-labelledby', 'confirm-revoke-title');
  dialog.setAttribute('aria-describedby', 'confirm-revoke-text');
  const heading = el('h2', null, `Revoke ${member.name}?`);
  heading.id = 'confirm-revoke-title';
  const text = el('p', null, `${member.name} (node ${member.nodeID}) leaves this space for good: the other members `
    + 'move to a new space key without it, and it can no longer sync with any of them. This cannot be undone.');
  text.id = 'confirm-revoke-text';
  const cancel = el('button', 'secondary', 'Cancel');
  cancel.type = 'button';
  cancel.addEventListener('click', () => dialog.close('cancel'));
  const confirm = el('button', 'danger', `Revoke ${member.name}`);
  confirm.type = 'button';
  confirm.id = 'confirm-revoke-ok';
  confirm.addEventListener('click', () => dialog.close('revoke'));
  const buttons = el('div', 'buttons');
  buttons.append(cancel, confirm);
  dialog.append(heading, text, buttons);
  dialog.addEventListener('close', async () => {
    dialog.remove();
    if (dialog.returnValue !== 'revoke') return;
    try {
      const reply = await api('POST', '/api/members/revoke', { node: member.nodeID });
      toast(reply.message);
    } catch (error) {
      toast(`Cannot revoke ${member.name}: ${error.message}`, 'error');
    }
    try { await loadMembers(); renderMembers(); } catch (_) { /* the toast said enough */ }
  });
  document.body.appendChild(dialog);
  dialog.showModal();
  cancel.focus();
}

document.addEventListener('DOMContentLoaded', () => {
  $('invite-open').addEventListener('click', openInvite);
  $('members-open').addEventListener('click', openMembers);
});
