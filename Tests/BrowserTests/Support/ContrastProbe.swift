/// Scripts that measure the page from inside it, from `getComputedStyle`: WCAG contrast ratios of
/// text against what is behind it, and of focus rings against what surrounds them.
enum ContrastProbe {
    /// Defines `window.__contrast`: `luminance`, `ratio`, `background(element)` (the colour behind an
    /// element, its ancestors' backgrounds composed), `textFailures(minimum)` (every visible text and
    /// placeholder under `minimum`), and `ring(element)` (the focused element's ring colour and its
    /// ratio against the background around it, or null when it shows none).
    static let install = #"""
    (() => {
      const parse = (text) => {
        const m = text.match(/rgba?\(([^)]+)\)/);
        if (!m) return null;
        const p = m[1].split(/[ ,\/]+/).filter(Boolean).map(Number);
        return { r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1 };
      };
      const over = (top, bottom) => ({ r: top.r * top.a + bottom.r * (1 - top.a), g: top.g * top.a + bottom.g * (1 - top.a),
                                       b: top.b * top.a + bottom.b * (1 - top.a), a: 1 });
      const channel = (c) => { c /= 255; return c <= 0.04045 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4); };
      const luminance = (c) => 0.2126 * channel(c.r) + 0.7152 * channel(c.g) + 0.0722 * channel(c.b);
      const ratio = (x, y) => { const a = luminance(x), b = luminance(y); return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05); };
      // The colour behind `element`: its own and its ancestors' backgrounds, composed from the root up.
      const background = (element) => {
        const layers = [];
        for (let node = element; node && node.nodeType === 1; node = node.parentElement) {
          const c = parse(getComputedStyle(node).backgroundColor);
          if (c && c.a > 0) { layers.push(c); if (c.a === 1) break; }
        }
        let colour = { r: 255, g: 255, b: 255, a: 1 };
        for (const layer of layers.reverse()) colour = over(layer, colour);
        return colour;
      };
      const visible = (element) => {
        const style = getComputedStyle(element);
        if (style.visibility !== 'visible' || style.display === 'none') return false;
        const r = element.getBoundingClientRect();
        if (r.width < 2 || r.height < 2 || r.bottom < 0 || r.right < 0 || r.top > innerHeight || r.left > innerWidth) return false;
        if (r.width <= 1 || (style.clip && style.clip !== 'auto')) return false;
        for (let node = element; node; node = node.parentElement) if (Number(getComputedStyle(node).opacity) < 1) return false;
        return true;
      };
      const name = (e) => e.id ? '#' + e.id : e.tagName.toLowerCase() + (e.className && typeof e.className === 'string' ? '.' + e.className.split(' ')[0] : '');
      const textFailures = (minimum) => {
        const failures = [];
        let checked = 0;
        for (const element of document.querySelectorAll('body *')) {
          const own = [...element.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
          const field = (element.tagName === 'INPUT' && element.type !== 'range' && element.type !== 'file') || element.tagName === 'SELECT';
          if ((!own && !field) || !visible(element)) continue;
          const style = getComputedStyle(element);
          const back = background(element);
          const checks = [['text', parse(style.color)]];
          if (element.placeholder && !element.value) checks.push(['placeholder', parse(getComputedStyle(element, '::placeholder').color)]);
          for (const [kind, colour] of checks) {
            checked += 1;
            const value = ratio(over(colour, back), back);
            if (value < minimum) failures.push(`${name(element)} ${kind} "${(element.textContent || element.placeholder || '').trim().slice(0, 30)}": ${value.toFixed(2)}`);
          }
        }
        return { checked, failures };
      };
      // The ring of the focused element: its outline, its label's (focus-within), or a tile frame's
      // first box-shadow; measured against the background around the element.
      const ring = (element) => {
        const candidates = [element, element.closest('label')].filter(Boolean);
        for (const node of candidates) {
          const style = getComputedStyle(node);
          if (style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) >= 2) {
            const colour = parse(style.outlineColor), around = background(node.parentElement || node);
            return { on: name(node), width: parseFloat(style.outlineWidth), ratio: ratio(over(colour, around), around) };
          }
        }
        const frame = element.classList.contains('tile') && element.querySelector('.frame');
        if (frame) {
          const shadow = getComputedStyle(frame).boxShadow;
          const colour = parse(shadow);
          const width = parseFloat((shadow.match(/\)\s+0px\s+0px\s+0px\s+([\d.]+)px/) || [])[1] || '0');
          const around = background(element.parentElement);
          return colour ? { on: name(element) + ' .frame', width, ratio: ratio(over(colour, around), around) } : null;
        }
        return null;
      };
      window.__contrast = { luminance, ratio, background, textFailures, ring, name };
      return true;
    })()
    """#
}
