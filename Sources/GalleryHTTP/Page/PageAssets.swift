import Foundation

/// The web page a node serves (issue 13, http-api.md section 3): one HTML file, one style sheet, one
/// script, vanilla, with no framework, build step or CDN. They live in the binary as these constants.
///
/// The script is kept in four readable parts (`PageAssets+Script*.swift`) joined into one file:
/// core (state, requests, galleries), grid (tiles, placeholders, zoom, FLIP), live (event stream,
/// selection, keyboard) and drag (drag and drop, uploads). Everything the page shows from the node,
/// titles and file names above all, is set with `textContent`, never parsed as HTML, and the
/// Content-Security-Policy allows no inline script or style.
package enum PageAssets {
    /// `GET /`: the page.
    package static let html = #"""
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="referrer" content="no-referrer">
        <title>Gallery</title>
        <link rel="stylesheet" href="/assets/app.css">
        <script src="/assets/app.js" defer></script>
        </head>
        <body>
        <div id="app">
          <aside id="sidebar" aria-label="Galleries">
            <header class="brand">
              <span class="logo" aria-hidden="true"></span>
              <span id="node-name">Gallery</span>
              <span id="connection" class="connection offline" title="Connecting…"></span>
              <span id="connection-label" class="visually-hidden" role="status" aria-live="polite">Connecting…</span>
            </header>
            <h2 class="section">Galleries</h2>
            <ul id="galleries" role="listbox" aria-label="Galleries"></ul>
            <form id="new-gallery" autocomplete="off">
              <input id="new-gallery-name" maxlength="200" placeholder="New gallery" aria-label="New gallery name">
              <button type="submit" aria-label="Create gallery">+</button>
            </form>
            <div id="trash" aria-label="Trash: drop items here to delete them">
              <span class="trash-icon" aria-hidden="true"></span><span>Trash</span>
            </div>
          </aside>
          <main id="main">
            <header class="toolbar">
              <h1 id="gallery-title"></h1>
              <span id="count" class="count"></span>
              <label class="zoom"><span class="zoom-small" aria-hidden="true"></span>
                <input id="zoom" type="range" min="80" max="480" step="1" value="160" aria-label="Zoom">
                <span class="zoom-large" aria-hidden="true"></span></label>
            </header>
            <div id="scroller">
              <div id="grid" role="listbox" aria-multiselectable="true" aria-label="Items" tabindex="0"></div>
              <div id="indicator" aria-hidden="true" hidden></div>
              <p id="empty" hidden>No images yet. Drop pictures here, or drag them from another node’s window.</p>
            </div>
          </main>
        </div>
        <div id="toasts" aria-live="polite"></div>
        </body>
        </html>
        """#

    /// `GET /assets/app.css`.
    package static let css = #"""
        :root {
          --h: 160px;
          --bg: #f6f5f2; --panel: #ffffff; --ink: #1f2328; --muted: #6b7078; --line: #e4e2dc;
          --accent: #2f6fde; --accent-soft: #e3ecfc; --danger: #c2412d; --danger-soft: #fbe7e3;
          --radius: 10px;
          font-family: system-ui, -apple-system, "Segoe UI", "DejaVu Sans", sans-serif;
          color: var(--ink); background: var(--bg);
        }
        * { box-sizing: border-box; }
        html, body { margin: 0; height: 100%; }
        .visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
        #app { display: grid; grid-template-columns: 232px 1fr; height: 100vh; }

        /* Sidebar */
        #sidebar { background: var(--panel); border-right: 1px solid var(--line); display: flex; flex-direction: column;
                   padding: 18px 12px 12px; gap: 6px; min-height: 0; }
        .brand { display: flex; align-items: center; gap: 10px; padding: 0 8px 14px; font-weight: 650; font-size: 15px; }
        .logo { width: 22px; height: 22px; border-radius: 6px; background: linear-gradient(135deg, #f0a35e, #d9577a 55%, #6a5bd6); }
        #node-name { flex: 1; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
        .connection { width: 8px; height: 8px; border-radius: 50%; background: #b9bcc2; }
        .connection.live { background: #35a865; box-shadow: 0 0 0 3px #35a86522; }
        .connection.offline { background: #e0a43a; }
        .connection.signed-out { background: var(--danger); }
        .section { font-size: 11px; text-transform: uppercase; letter-spacing: .08em; color: var(--muted); margin: 4px 8px; font-weight: 600; }
        #galleries { list-style: none; margin: 0; padding: 0; overflow: auto; flex: 1; min-height: 0; }
        .gallery-row { display: flex; align-items: center; gap: 8px; padding: 7px 10px; border-radius: 8px; cursor: default;
                       font-size: 14px; border: 1.5px solid transparent; user-select: none; }
        .gallery-row:hover { background: #f1f0ec; }
        .gallery-row[aria-selected="true"] { background: var(--accent-soft); color: #163f8a; font-weight: 600; }
        .gallery-row.drop-target { border-color: var(--accent); background: var(--accent-soft); }
        .gallery-row.forbidden { border-color: var(--danger); background: var(--danger-soft); }
        .gallery-name { flex: 1; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
        .gallery-count { color: var(--muted); font-size: 12px; font-variant-numeric: tabular-nums; }
        #new-gallery { display: flex; gap: 6px; padding: 6px 4px; }
        #new-gallery input { flex: 1; min-width: 0; border: 1px solid var(--line); border-radius: 8px; padding: 7px 9px;
                             font: inherit; font-size: 13px; background: var(--bg); }
        #new-gallery input:focus { outline: 2px solid var(--accent-soft); border-color: var(--accent); }
        #new-gallery button { border: 0; border-radius: 8px; width: 32px; background: var(--ink); color: white; font-size: 17px; cursor: pointer; }
        #trash { display: flex; align-items: center; justify-content: center; gap: 8px; margin-top: 6px; height: 64px;
                 border: 1.5px dashed #cfccc4; border-radius: var(--radius); color: var(--muted); font-size: 13px;
                 transition: background .12s, border-color .12s, color .12s; }
        #trash.drop-target { border-color: var(--danger); background: var(--danger-soft); color: var(--danger); }
        .trash-icon { width: 14px; height: 16px; border: 2px solid currentColor; border-top-width: 3px; border-radius: 1px 1px 3px 3px; }

        /* Main */
        #main { display: flex; flex-direction: column; min-width: 0; min-height: 0; }
        .toolbar { display: flex; align-items: baseline; gap: 12px; padding: 18px 28px 12px; }
        #gallery-title { font-size: 22px; margin: 0; font-weight: 650; letter-spacing: -.01em; overflow: hidden;
                         text-overflow: ellipsis; white-space: nowrap; }
        .count { color: var(--muted); font-size: 13px; flex: 1; }
        .zoom { display: flex; align-items: center; gap: 8px; align-self: center; }
        .zoom input { width: 140px; accent-color: var(--ink); }
        .zoom-small, .zoom-large { display: inline-block; border: 1.5px solid var(--muted); border-radius: 2px; }
        .zoom-small { width: 9px; height: 7px; } .zoom-large { width: 15px; height: 11px; }
        #scroller { position: relative; flex: 1; overflow: auto; padding: 4px 28px 40px; min-height: 0; }
        #scroller.forbidden { cursor: not-allowed; }
        #grid { position: relative; outline: none; }
        #grid:focus-visible { outline: 2px solid var(--accent-soft); outline-offset: 6px; border-radius: 6px; }
        #empty { position: absolute; inset: 80px 28px auto; text-align: center; color: var(--muted); font-size: 15px; }

        /* Tiles: the height is the zoom; the width keeps the aspect ratio. */
        /* Tiles: the height is the zoom; the width keeps the aspect ratio. The script places them (left,
           top, width): the grid is virtual, only tiles near the viewport exist. */
        .tile { position: absolute; display: flex; flex-direction: column; gap: 6px; user-select: none;
                border-radius: var(--radius); outline: none; }
        .frame { height: var(--h); border-radius: var(--radius); overflow: hidden; background: #e9e7e1; position: relative;
                 box-shadow: 0 1px 2px #0000000f, 0 2px 10px #0000000a; transition: box-shadow .15s, transform .15s; }
        .frame img { width: 100%; height: 100%; object-fit: cover; display: block; }
        .tile:hover .frame { box-shadow: 0 2px 4px #00000014, 0 8px 24px #00000014; }
        .caption { font-size: 12.5px; color: #3d4148; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; padding: 0 2px; height: 18px; }
        .tile.selected .frame { box-shadow: 0 0 0 3px var(--accent), 0 6px 18px #2f6fde33; }
        .tile.selected .caption { color: var(--accent); font-weight: 600; }
        .tile:focus-visible .frame { box-shadow: 0 0 0 3px #1f2328; }
        .tile.dragging { opacity: .35; }
        .missing, .reason { position: absolute; inset: 0; display: flex; align-items: center; justify-content: center;
                            padding: 10px; text-align: center; font-size: 12px; color: var(--muted); }
        .tile.failed .frame { background: var(--danger-soft); }
        .tile.failed .reason { color: var(--danger); font-weight: 600; }
        .tile.leaving { opacity: 0; transform: scale(.9); transition: opacity .35s, transform .35s; }

        /* Placeholders: a progress ring and a cancel button */
        .tile.placeholder .frame { background: repeating-linear-gradient(135deg, #eceae4 0 12px, #e6e3dc 12px 24px); }
        .ring { position: absolute; inset: 0; display: flex; align-items: center; justify-content: center; }
        .ring svg { width: min(56px, 50%); height: min(56px, 50%); transform: rotate(-90deg); }
        .ring circle { fill: none; stroke-width: 4; }
        .ring .track { stroke: #d3d0c8; }
        .ring .bar { stroke: var(--accent); stroke-linecap: round; stroke-dasharray: 0 100; transition: stroke-dasharray .2s; }
        .ring.waiting svg { animation: spin 1.2s linear infinite; }
        @keyframes spin { from { transform: rotate(-90deg); } to { transform: rotate(270deg); } }
        .percent { position: absolute; font-size: 11px; font-weight: 600; color: #4a4f57; font-variant-numeric: tabular-nums; }
        .cancel { position: absolute; top: 6px; right: 6px; width: 24px; height: 24px; border-radius: 50%; border: 0;
                  background: #ffffffd9; color: #3d4148; font-size: 16px; line-height: 1; cursor: pointer; box-shadow: 0 1px 3px #0002; }
        .cancel:hover { background: white; color: var(--danger); }

        /* The insertion indicator follows the pointer during a drag */
        #indicator { position: absolute; left: 0; top: 0; width: 4px; border-radius: 2px; background: var(--accent);
                     box-shadow: 0 0 0 3px #2f6fde33; pointer-events: none; transition: transform .06s linear; z-index: 2; }
        #indicator[hidden] { display: none; }
        .drag-badge { position: fixed; top: -100px; left: 0; padding: 6px 10px; border-radius: 14px; background: var(--accent);
                      color: white; font-size: 13px; font-weight: 600; }

        /* Messages */
        #toasts { position: fixed; right: 20px; bottom: 20px; display: flex; flex-direction: column; gap: 8px; z-index: 10; max-width: 380px; }
        .toast { background: var(--ink); color: white; padding: 10px 14px; border-radius: 9px; font-size: 13px;
                 box-shadow: 0 6px 24px #0003; transition: opacity .35s; overflow-wrap: anywhere; }
        .toast.error { background: #7d2417; }
        .toast.leaving { opacity: 0; }
        """#

    /// `GET /assets/app.js`: the script, one file.
    package static let javascript = [scriptCore, scriptGrid, scriptLive, scriptDrag].joined(separator: "\n")

    /// The path of each asset and its `Content-Type`.
    package static let files: [(path: String, contentType: String, body: String)] = [
        ("/", "text/html; charset=utf-8", html),
        ("/assets/app.css", "text/css; charset=utf-8", css),
        ("/assets/app.js", "text/javascript; charset=utf-8", javascript),
    ]

    /// The `Content-Security-Policy` every response carries (http-api.md section 2): scripts and styles
    /// only from the node's own files, pictures also from http(s) URLs (items added by URL), requests
    /// only to the node.
    package static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: http: https:; "
        + "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    /// The fields every response of the web adapter carries: the CSP, `nosniff`, no referrer.
    package static let securityHeaders: [(String, String)] = [
        ("Content-Security-Policy", contentSecurityPolicy),
        ("X-Content-Type-Options", "nosniff"),
        ("Referrer-Policy", "no-referrer"),
    ]
}
