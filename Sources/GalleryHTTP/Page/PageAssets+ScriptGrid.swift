extension PageAssets {
    /// The script's grid part: tiles that keep their aspect ratio, placeholders with a progress ring, zoom, FLIP.
    static let scriptGrid = #"""
        // ---- The grid: tiles that keep each image's aspect ratio ----

        function blobURL(item) {
          if (item.hash) return `/blobs/${item.hash}`;
          if (item.url && /^https?:/i.test(item.url)) return item.url;
          return null;
        }

        function aspectOf(item) {
          const ratio = Number(item.aspectRatio);
          return ratio > 0.05 && ratio < 20 ? ratio : 1;
        }

        function makeTile(item) {
          const tile = el('div', 'tile');
          tile.dataset.id = item.id;
          tile.setAttribute('role', 'option');
          tile.tabIndex = -1;
          tile.draggable = true;
          tile.appendChild(el('div', 'frame'));
          tile.appendChild(el('div', 'caption'));
          fillTile(tile, item);
          return tile;
        }

        // (Re)draws a tile for `item`: an image, or a placeholder with a progress ring and a cancel button.
        function fillTile(tile, item) {
          const placeholder = item.state === 'placeholder';
          tile.classList.toggle('placeholder', placeholder);
          tile.classList.toggle('selected', S.selected.has(item.id));
          tile.setAttribute('aria-selected', String(S.selected.has(item.id)));
          tile.style.setProperty('--a', aspectOf(item));
          const title = item.title == null ? '' : String(item.title);
          tile.querySelector('.caption').textContent = title;
          tile.setAttribute('aria-label', (title || 'untitled') + (placeholder ? ', loading' : ''));
          tile.title = title;
          const frame = tile.querySelector('.frame');
          if (placeholder) {
            if (!frame.querySelector('.ring')) frame.replaceChildren(makeRing(item), makeCancel(item));
            setProgress(tile, item.progress);
            return;
          }
          const source = blobURL(item);
          const current = frame.querySelector('img');
          if (current && current.dataset.src === source) return;
          if (!source) { frame.replaceChildren(el('div', 'missing', 'no image')); return; }
          const image = document.createElement('img');
          image.loading = 'lazy';
          image.decoding = 'async';
          image.alt = '';
          image.draggable = false;
          image.dataset.src = source;
          image.referrerPolicy = 'no-referrer';
          image.addEventListener('error', () => frame.replaceChildren(el('div', 'missing', 'image unavailable')), { once: true });
          image.src = source;
          frame.replaceChildren(image);
        }

        function makeRing(item) {
          const ns = 'http://www.w3.org/2000/svg';
          const box = el('div', 'ring');
          const svg = document.createElementNS(ns, 'svg');
          svg.setAttribute('viewBox', '0 0 44 44');
          svg.setAttribute('aria-hidden', 'true');
          for (const name of ['track', 'bar']) {
            const circle = document.createElementNS(ns, 'circle');
            circle.setAttribute('class', name);
            circle.setAttribute('cx', '22'); circle.setAttribute('cy', '22'); circle.setAttribute('r', '18');
            circle.setAttribute('pathLength', '100');
            svg.appendChild(circle);
          }
          box.appendChild(svg);
          const label = el('div', 'percent', '');
          box.appendChild(label);
          box.setAttribute('role', 'progressbar');
          box.setAttribute('aria-valuemin', '0');
          box.setAttribute('aria-valuemax', '100');
          box.setAttribute('aria-label', `Loading ${item.title || 'item'}`);
          return box;
        }

        function makeCancel(item) {
          const button = el('button', 'cancel', '×');
          button.type = 'button';
          button.setAttribute('aria-label', `Cancel ${item.title || 'transfer'}`);
          button.addEventListener('click', (e) => { e.stopPropagation(); cancelPlaceholder(item.id); });
          return button;
        }

        // progress: {done, total} or null (waiting: an indeterminate, slowly turning ring).
        function setProgress(tile, progress) {
          const ring = tile.querySelector('.ring');
          if (!ring) return;
          const known = progress && progress.total > 0;
          const percent = known ? Math.min(100, Math.floor(progress.done * 100 / progress.total)) : 0;
          ring.classList.toggle('waiting', !known);
          ring.querySelector('.bar').style.strokeDasharray = `${known ? percent : 25} 100`;
          ring.querySelector('.percent').textContent = known ? `${percent}%` : '';
          ring.setAttribute('aria-valuenow', String(percent));
          tile.dataset.progress = String(percent);
        }

        async function cancelPlaceholder(id) {
          const upload = S.uploads.get(id);
          try {
            if (upload) {
              upload.controller.abort();
              S.uploads.delete(id);
              await api('DELETE', `/api/uploads/${encodeURIComponent(upload.upload)}`);
            } else {
              await api('POST', '/api/transfers/cancel', { transfer: id });
            }
          } catch (error) {
            toast(`Cannot cancel: ${error.message}`, 'error');
          }
        }

        function renderGrid() {
          const grid = $('grid');
          S.tiles = new Map();
          const fragment = document.createDocumentFragment();
          for (const item of S.items) {
            const tile = makeTile(item);
            S.tiles.set(item.id, tile);
            fragment.appendChild(tile);
          }
          fragment.appendChild(el('div', 'end'));
          grid.replaceChildren(fragment);
          $('gallery-title').textContent = S.gallery || '';
          updateCount();
        }

        function updateCount() {
          const n = S.items.length;
          $('count').textContent = n === 1 ? '1 item' : `${n.toLocaleString('en')} items`;
          $('empty').hidden = n > 0;
        }

        // Puts the tile of S.items[index] in its place in the DOM (before the next item's tile).
        function placeTile(index) {
          const item = S.items[index];
          let tile = S.tiles.get(item.id);
          if (!tile) { tile = makeTile(item); S.tiles.set(item.id, tile); }
          const next = index + 1 < S.items.length ? S.tiles.get(S.items[index + 1].id) : $('grid').querySelector('.end');
          $('grid').insertBefore(tile, next);
          return tile;
        }

        // ---- Zoom: slider and ctrl+wheel (trackpad pinch arrives as ctrl+wheel) ----

        function setZoom(height) {
          const clamped = Math.max(80, Math.min(480, Math.round(height)));
          document.documentElement.style.setProperty('--h', clamped + 'px');
          $('zoom').value = String(clamped);
          try { localStorage.setItem('gallery.zoom', String(clamped)); } catch (_) { /* private mode */ }
        }

        // ---- FLIP: tiles glide from where they were to where a change put them ----

        function flipStart(ids) {
          const tiles = S.items.length <= FLIP_LIMIT ? [...S.tiles.values()] : ids.map((id) => S.tiles.get(id)).filter(Boolean);
          const first = new Map();
          const viewport = $('scroller').getBoundingClientRect();
          for (const tile of tiles) {
            if (!tile.isConnected) continue;
            const rect = tile.getBoundingClientRect();
            if (rect.bottom < viewport.top - 200 || rect.top > viewport.bottom + 200) continue;
            first.set(tile, rect);
          }
          return () => {
            for (const [tile, rect] of first) {
              if (!tile.isConnected) continue;
              const last = tile.getBoundingClientRect();
              const dx = rect.left - last.left, dy = rect.top - last.top;
              if (Math.abs(dx) < 1 && Math.abs(dy) < 1) continue;
              tile.animate([{ transform: `translate(${dx}px, ${dy}px)` }, { transform: 'none' }],
                           { duration: 180, easing: 'cubic-bezier(.2,.7,.3,1)' });
              T.animated += 1;
            }
          };
        }
        """#
}
