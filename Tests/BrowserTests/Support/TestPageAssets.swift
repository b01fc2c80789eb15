import GalleryHTTP

/// The test page: HTML, its script and its style, served as three files under a strict
/// Content-Security-Policy (no inline script or style). The HTML holds one inline script on purpose,
/// a canary: the policy must block it, so the tests can tell the header is in force.
///
/// The script keeps what the tests assert in `window.__state`: tile order, drag log, uploads, events.
enum TestPageAssets {
    /// Headers every response carries.
    static var securityHeaders: HTTPHeaders {
        HTTPHeaders([
            ("Content-Security-Policy",
             "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; "
                + "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"),
            ("X-Content-Type-Options", "nosniff"),
        ])
    }

    static let html = """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <title>Browser smoke test</title>
        <link rel="stylesheet" href="/app.css">
        <script src="/app.js" defer></script>
        </head>
        <body>
        <h1 id="banner">waiting for events</h1>
        <p id="status" role="status">page loaded</p>
        <div id="grid" role="listbox" aria-label="tiles"></div>
        <div id="dropzone">drop files here</div>
        <ul id="uploads"></ul>
        <script>window.__inlineRan = true;</script>
        </body>
        </html>
        """

    static let style = """
        body { font-family: sans-serif; margin: 16px; background: #f4f4f6; }
        #grid { display: flex; gap: 12px; flex-wrap: wrap; min-height: 130px; }
        .tile { width: 150px; height: 110px; border-radius: 10px; color: white; font-size: 28px; font-weight: bold;
                display: flex; align-items: center; justify-content: center; cursor: grab; user-select: none; }
        .tile.selected { outline: 4px solid #222; }
        .tile.foreign { border: 4px dashed #111; }
        #dropzone { margin-top: 16px; height: 90px; border: 3px dashed #888; display: flex; align-items: center;
                    justify-content: center; color: #555; }
        """

    static let script = """
        'use strict';
        const state = window.__state = { log: [], uploads: [], events: [], violations: [], sseOpen: false };
        const name = new URLSearchParams(location.search).get('name') || 'W';
        const palette = ['#c0392b', '#2980b9', '#27ae60', '#8e44ad', '#d35400', '#16a085'];
        const grid = document.getElementById('grid');
        document.addEventListener('securitypolicyviolation', e => state.violations.push(e.effectiveDirective));

        function makeTile(id, foreign) {
          const tile = document.createElement('div');
          tile.className = 'tile' + (foreign ? ' foreign' : '');
          tile.dataset.id = id;
          tile.textContent = id;
          tile.draggable = true;
          tile.tabIndex = 0;
          tile.setAttribute('role', 'option');
          tile.style.background = palette[id.charCodeAt(id.length - 1) % palette.length];
          return tile;
        }
        ['A', 'B', 'C', 'D', 'E'].forEach(id => grid.appendChild(makeTile(id, false)));
        window.tileOrder = () => [...grid.children].map(t => t.dataset.id).join('');

        grid.addEventListener('click', e => {
          const tile = e.target.closest('.tile');
          if (!tile) return;
          grid.querySelectorAll('.selected').forEach(t => t.classList.remove('selected'));
          tile.classList.add('selected');
          tile.focus();
          state.selected = tile.dataset.id;
        });
        grid.addEventListener('keydown', e => {
          const tile = e.target.closest('.tile');
          if (!tile || !e.altKey) return;
          if (e.key === 'ArrowRight' && tile.nextElementSibling) tile.nextElementSibling.after(tile);
          else if (e.key === 'ArrowLeft' && tile.previousElementSibling) tile.previousElementSibling.before(tile);
          else return;
          e.preventDefault();
          tile.focus();
          state.log.push('key ' + e.key + ' ' + tile.dataset.id);
        });

        grid.addEventListener('dragstart', e => {
          const tile = e.target.closest('.tile');
          e.dataTransfer.setData('text/plain', tile.dataset.id);
          e.dataTransfer.setData('application/x-gallery-item', JSON.stringify({ id: tile.dataset.id, from: name }));
          e.dataTransfer.effectAllowed = 'copyMove';
          state.log.push('dragstart ' + tile.dataset.id);
        });
        grid.addEventListener('dragend', e => state.log.push('dragend ' + e.dataTransfer.dropEffect));

        function acceptsDrag(e) {
          const types = [...e.dataTransfer.types];
          return types.includes('application/x-gallery-item') || types.includes('Files');
        }
        for (const zone of [grid, document.getElementById('dropzone')]) {
          zone.addEventListener('dragover', e => {
            if (!acceptsDrag(e)) return;
            e.preventDefault();
            e.dataTransfer.dropEffect = [...e.dataTransfer.types].includes('Files') ? 'copy' : 'move';
          });
          zone.addEventListener('drop', e => { e.preventDefault(); handleDrop(e); });
        }

        function handleDrop(e) {
          const target = e.target.closest('.tile');
          if (e.dataTransfer.files.length > 0) {
            for (const file of e.dataTransfer.files) upload(file);
            return;
          }
          const item = JSON.parse(e.dataTransfer.getData('application/x-gallery-item'));
          state.log.push('drop ' + item.from + ':' + item.id + ' types=' + [...e.dataTransfer.types].join(','));
          let tile;
          if (item.from === name) {
            tile = grid.querySelector('[data-id="' + CSS.escape(item.id) + '"]');
            if (!tile || tile === target) return;
          } else {
            tile = makeTile(item.from + ':' + item.id, true);
          }
          if (!target) { grid.appendChild(tile); return; }
          const targetIndex = [...grid.children].indexOf(target);
          tile.remove();
          grid.insertBefore(tile, grid.children[targetIndex] || null);
        }

        async function upload(file) {
          const response = await fetch('/upload?name=' + encodeURIComponent(file.name),
                                       { method: 'POST', body: file, headers: { 'Content-Type': 'application/octet-stream' } });
          const reply = await response.json();
          state.uploads.push({ name: file.name, size: file.size, type: file.type, status: response.status, reply });
          const row = document.createElement('li');
          row.textContent = file.name + ': ' + reply.size + ' bytes stored';
          document.getElementById('uploads').appendChild(row);
        }

        const events = new EventSource('/events');
        events.addEventListener('open', () => { state.sseOpen = true; });
        events.addEventListener('title', e => {
          state.events.push({ id: e.lastEventId, data: e.data });
          document.getElementById('banner').textContent = e.data;
        });
        state.ready = true;
        """
}
