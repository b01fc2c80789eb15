// ---- Offline: the node cannot be reached ----
// When the event stream drops and the node does not answer, or a request fails because it cannot be
// reached, a banner across the top says so ("Not connected to NODE. Retrying in 3 s · Retry now")
// until the stream is back. While it shows, changes (move, delete, upload, new gallery, drops) are
// refused at once with a message, never queued: a queued move would land on a gallery others may
// have changed meanwhile. Nothing is lost: the page asked for nothing.

const RETRY_SECONDS = 3;
const OFFLINE = { offline: false, timer: null, ticker: null, retryAt: 0, probing: false };

function nodeLabel() { return (S.status && S.status.node) || location.host; }

// The error a request throws when the node is unreachable (and the banner goes up).
function unreachable(error) {
  if (error && error.name === 'AbortError') return error;
  goOffline();
  const refused = new Error(`Not connected to ${nodeLabel()}. Nothing was changed; try again when it is back.`);
  refused.code = 'offline';
  return refused;
}

function refuseWhileOffline() {
  if (!OFFLINE.offline) return;
  const refused = new Error(`Not connected to ${nodeLabel()}. Nothing was changed: changes are refused until it is back.`);
  refused.code = 'offline';
  throw refused;
}

// The event stream reported an error: the node is gone, restarting, or signed us out. Ask it.
async function streamDropped(source) {
  if (S.events !== source) return;
  source.close();
  setConnection('offline', 'Reconnecting…');
  if (OFFLINE.probing) return;
  OFFLINE.probing = true;
  let status = 0;
  try {
    status = (await fetch('/api/status', { credentials: 'same-origin', cache: 'no-store' })).status;
  } catch (_) {
    status = 0;
  } finally {
    OFFLINE.probing = false;
  }
  if (S.events !== source) return;              // someone reconnected meanwhile
  if (status === 401) { signedOut(); return; }  // no retrying: a new link is needed
  if (status === 0) { goOffline(); return; }    // unreachable: banner, retry in 3 s
  connectEvents();                              // the node is there: resume at once
}

function goOffline() {
  if (!OFFLINE.offline) {
    OFFLINE.offline = true;
    T.offline = true;
    document.body.classList.add('offline');
    $('offline').hidden = false;
    setConnection('offline', `Not connected to ${nodeLabel()}`);
  }
  if (!OFFLINE.timer) scheduleRetry();
}

function scheduleRetry() {
  clearTimeout(OFFLINE.timer);
  clearInterval(OFFLINE.ticker);
  OFFLINE.retryAt = Date.now() + RETRY_SECONDS * 1000;
  OFFLINE.timer = setTimeout(retryNow, RETRY_SECONDS * 1000);
  OFFLINE.ticker = setInterval(renderBanner, 250);
  renderBanner();
}

function renderBanner() {
  const seconds = Math.max(0, Math.ceil((OFFLINE.retryAt - Date.now()) / 1000));
  $('offline-text').textContent = seconds > 0
    ? `Not connected to ${nodeLabel()}. Retrying in ${seconds} s ·`
    : `Not connected to ${nodeLabel()}. Connecting… ·`;
}

// Reconnects now: the stream from what the page has (its `open` clears the banner); on failure the
// stream's error comes back here through streamDropped, and the next retry is scheduled.
function retryNow() {
  clearTimeout(OFFLINE.timer);
  clearInterval(OFFLINE.ticker);
  OFFLINE.timer = null;
  OFFLINE.retryAt = 0;
  renderBanner();
  T.retries = (T.retries || 0) + 1;
  if (!T.ready) { location.reload(); return; }   // it never loaded: load it all
  connectEvents();
}

function nodeReachable() {
  if (!OFFLINE.offline) return;
  OFFLINE.offline = false;
  T.offline = false;
  clearTimeout(OFFLINE.timer);
  clearInterval(OFFLINE.ticker);
  OFFLINE.timer = null;
  document.body.classList.remove('offline');
  $('offline').hidden = true;
  toast(`Connected to ${nodeLabel()} again.`);
}

function signedOutBanner() {
  document.body.classList.add('offline');
  $('offline').hidden = false;
  $('offline-text').textContent = 'Signed out of this node. Run `gallery open` on it for a new link.';
  $('offline-retry').hidden = true;
}

document.addEventListener('DOMContentLoaded', () => {
  T.offline = false;
  $('offline-retry').addEventListener('click', retryNow);
});
