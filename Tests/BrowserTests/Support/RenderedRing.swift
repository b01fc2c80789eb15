import Foundation
import GalleryTestSupport

/// A focus ring measured from rendered pixels (as WCAG 2.4.13 words it: the same pixels in the
/// focused and the unfocused state): two screenshots of the area around the focused element, one as
/// it is and one with the focus taken away, compared pixel by pixel in a canvas. Whatever the CSS
/// (outline, box-shadow, a label's ring), what counts is what the screen shows.
struct RenderedRing: CustomStringConvertible {
    /// The focused element, as `__contrast.name` names it.
    var on: String
    /// Pixels that changed with the focus by a contrast of at least 3:1.
    var strong: Int
    /// What a ring 1 CSS pixel wide all around the element covers: its perimeter.
    var perimeter: Int
    /// The median contrast of the changed pixels (focused against unfocused).
    var medianRatio: Double

    /// A visible ring: at least a perimeter's worth of pixels (a 2 px ring has two) changed by >= 3:1.
    var passes: Bool { strong >= perimeter }

    var description: String { "\(on): \(strong) px at >= 3:1 for a perimeter of \(perimeter), median \(String(format: "%.2f", medianRatio)):1" }

    /// Measures the ring of the focused element of `page` (`ContrastProbe.install` run), and gives
    /// it the focus back.
    static func measure(_ page: BrowserPage) throws -> RenderedRing {
        let box = try page.evaluate("""
            (() => { const e = document.activeElement; window.__ringElement = e;
              // A visually hidden control (Add photos' file input) shows its ring on its label.
              const shown = (e.getBoundingClientRect().width < 4 && e.closest('label')) || e; const r = shown.getBoundingClientRect();
              const x = Math.max(0, Math.floor(r.left - 12)), y = Math.max(0, Math.floor(r.top - 12));
              return [x, y, Math.min(innerWidth, Math.ceil(r.right + 12)) - x, Math.min(innerHeight, Math.ceil(r.bottom + 12)) - y,
                      Math.round(2 * (Math.min(r.width, innerWidth) + Math.min(r.height, innerHeight))), __contrast.name(shown)]; })()
            """) as? [Any] ?? []
        let numbers = box.prefix(5).compactMap { ($0 as? NSNumber)?.doubleValue }
        guard box.count == 6, numbers.count == 5, numbers[2] > 0, numbers[3] > 0
        else { return RenderedRing(on: "?", strong: 0, perimeter: 1, medianRatio: 0) }
        let clip: [String: Any] = ["x": numbers[0], "y": numbers[1], "width": numbers[2], "height": numbers[3], "scale": 1]
        func shot() throws -> String {
            try page.send("Page.captureScreenshot", ["format": "png", "clip": clip])["data"] as? String ?? ""
        }
        let focused = try shot()
        try page.evaluate("__ringElement.blur(); true")
        try page.settle()
        let unfocused = try shot()
        try page.evaluate("__ringElement.focus(); true")
        try page.settle()
        let result = try page.evaluate("""
            (async () => {
              const load = async (data) => { const i = new Image(); i.src = 'data:image/png;base64,' + data; await i.decode(); return i; };
              const a = await load(\(BrowserPage.jsString(focused))), b = await load(\(BrowserPage.jsString(unfocused)));
              const pixels = (image) => { const c = document.createElement('canvas'); c.width = image.naturalWidth; c.height = image.naturalHeight;
                const g = c.getContext('2d'); g.drawImage(image, 0, 0); return g.getImageData(0, 0, c.width, c.height).data; };
              const p = pixels(a), q = pixels(b);
              const ratios = [];
              for (let i = 0; i < Math.min(p.length, q.length); i += 4) {
                if (p[i] === q[i] && p[i + 1] === q[i + 1] && p[i + 2] === q[i + 2]) continue;
                ratios.push(__contrast.ratio({ r: p[i], g: p[i + 1], b: p[i + 2] }, { r: q[i], g: q[i + 1], b: q[i + 2] }));
              }
              ratios.sort((x, y) => x - y);
              return [ratios.filter((r) => r >= 3).length, ratios.length ? ratios[ratios.length >> 1] : 0];
            })()
            """) as? [NSNumber] ?? []
        return RenderedRing(on: box[5] as? String ?? "?", strong: result.first?.intValue ?? 0, perimeter: Int(numbers[4]),
                            medianRatio: result.count > 1 ? result[1].doubleValue : 0)
    }
}
