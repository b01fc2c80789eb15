import Foundation
import GalleryTestSupport

/// `gallery-bench web`'s paint part: how long a gallery takes to paint, from the navigation's start
/// (`performance.timeOrigin`, the moment the browser starts the navigation, before the new renderer)
/// to the first frame whose grid holds tiles of the gallery and whose count names all its items.
///
/// After one navigation not counted (the reference by the token link: the browser's first renderer
/// and cache start cold), each repetition opens four new tabs, one after the other, in one browser: the large gallery
/// (`--items`, node A's own) and the reference gallery (`--reference-items`, 300) by the token link
/// (`/?token=…`: the sign-in's 303 included), then both by the bookmarked address (`/`, the
/// persistent cookie already set). The reference measured in the same minutes is what the load costs:
/// the ratio of the two medians is the large gallery's own cost.
///
/// Each navigation's breakdown is the page's Navigation and Resource Timing (the redirect, the
/// HTML's first and last byte, the script and style, the status, galleries and items answers) and
/// its own marks (`gallery:*`, `performance.mark`): milliseconds from the navigation's start.
enum PaintBenchmark {
    /// One navigation's figures.
    struct Run {
        let label: String
        let painted: Double
        let whole: Double
        let breakdown: String
    }

    /// The runs, one JSON line each, then one summary line per way in (link, bookmark).
    static func run(_ browser: Browser, _ nodes: WebBenchNodes, items: Int, reference: Int, repetitions: Int) throws -> [String] {
        guard let origin = URLComponents(string: nodes.a.link).map({ "http://\($0.host ?? "127.0.0.1"):\($0.port ?? 0)/" }) else {
            throw BenchFailure.failed("web: no origin in \(nodes.a.link)")
        }
        let ways: [(name: String, url: String)] = [("link", nodes.a.link), ("bookmark", origin)]
        let galleries: [(name: String, fragment: String, count: Int)] = [("alice", "", items), (WebBenchNodes.referenceGallery, "#" + WebBenchNodes.referenceGallery, reference)]
        var lines: [String] = []
        var runs: [String: [Run]] = [:]
        // One navigation first, not counted: the browser's first renderer and disk cache start cold.
        let warmUp = try navigate(browser, to: nodes.a.link + galleries[1].fragment, gallery: galleries[1].name, count: galleries[1].count)
        lines.append("{\"workload\": \"web-paint-warm-up\", \"gallery\": \"\(galleries[1].name)\", \"paintedMs\": \(format(warmUp.painted))}")
        for repetition in 1...repetitions {
            for way in ways {
                // Alternated: the large gallery first in odd repetitions, the reference first in even ones.
                let order = repetition % 2 == 1 ? galleries : Array(galleries.reversed())
                for gallery in order {
                    let run = try navigate(browser, to: way.url + gallery.fragment, gallery: gallery.name, count: gallery.count)
                    runs["\(way.name) \(gallery.name)", default: []].append(run)
                    lines.append("{\"workload\": \"web-paint-run\", \"way\": \"\(way.name)\", \"gallery\": \"\(gallery.name)\", "
                                 + "\"items\": \(gallery.count), \"repetition\": \(repetition), \"paintedMs\": \(format(run.painted)), "
                                 + "\"wholeListMs\": \(format(run.whole)), \"timing\": \(run.breakdown)}")
                }
            }
        }
        for way in ways {
            let large = runs["\(way.name) alice"] ?? [], small = runs["\(way.name) \(WebBenchNodes.referenceGallery)"] ?? []
            let largeMedian = median(large.map(\.painted)), smallMedian = median(small.map(\.painted))
            lines.append("{\"workload\": \"web-paint\", \"way\": \"\(way.name)\", \"items\": \(items), \"referenceItems\": \(reference), "
                         + "\"repetitions\": \(repetitions), \"paintedMs\": \(list(large.map(\.painted))), "
                         + "\"referencePaintedMs\": \(list(small.map(\.painted))), \"medianMs\": \(format(largeMedian)), "
                         + "\"referenceMedianMs\": \(format(smallMedian)), \"ratio\": \(String(format: "%.3f", largeMedian / smallMedian)), "
                         + "\"wholeListMs\": \(list(large.map(\.whole))), \"load\": \(loadAverage())}")
        }
        return lines
    }

    /// Opens `url` in a new tab and waits for the paint and then the whole list.
    private static func navigate(_ browser: Browser, to url: String, gallery: String, count: Int) throws -> Run {
        let page = try browser.newPage(url: "about:blank")
        defer { page.close() }
        // Runs before the page's own script: checks every frame, stamps the first one after the grid
        // shows the gallery with tiles and its whole count.
        _ = try page.send("Page.addScriptToEvaluateOnNewDocument", ["source": """
            (function watch() {
              const s = window.__state, title = document.getElementById('gallery-title');
              if (s && s.itemCount === \(count) && title && title.textContent === \(BrowserPage.jsString(gallery))
                  && document.querySelector('#grid .tile')) {
                window.__tilesAtPaint = document.querySelectorAll('#grid .tile').length;
                requestAnimationFrame(() => { window.__paintedAt = performance.now(); });
              } else { requestAnimationFrame(watch); }
            })();
            """])
        try page.navigate(to: url, timeout: .seconds(60))
        try page.waitFor("window.__paintedAt !== undefined", timeout: .seconds(60))
        try page.waitFor("window.__state && __state.ready", timeout: .seconds(60))
        guard let painted = try page.evaluate("window.__paintedAt") as? Double,
              let breakdown = try page.evaluateString(breakdownScript) else {
            throw BenchFailure.failed("web: no paint figures from \(url)")
        }
        // The whole list laid out (a page without the mark paints only after it: its paint).
        let whole = (try? page.evaluate("(performance.getEntriesByName('gallery:items-rendered').pop() || {}).startTime")) as? Double
        return Run(label: gallery, painted: painted, whole: whole ?? painted, breakdown: breakdown)
    }

    /// The navigation's timeline, as JSON: milliseconds from its start.
    private static let breakdownScript = """
        (() => {
          const nav = performance.getEntriesByType('navigation')[0] || {};
          const resources = performance.getEntriesByType('resource');
          const find = (test) => resources.find((e) => { const u = new URL(e.name); return test(u.pathname, u.search); });
          const pick = (e) => e ? { start: Math.round(e.startTime), ttfb: Math.round(e.responseStart), end: Math.round(e.responseEnd),
                                    bytes: e.encodedBodySize } : null;
          const marks = {};
          for (const m of performance.getEntriesByType('mark')) if (m.name.startsWith('gallery:')) marks[m.name.slice(8)] = Math.round(m.startTime);
          const paints = {};
          for (const p of performance.getEntriesByType('paint')) paints[p.name] = Math.round(p.startTime);
          return JSON.stringify({
            redirectEnd: Math.round(nav.redirectEnd || 0), htmlRequest: Math.round(nav.requestStart), htmlTTFB: Math.round(nav.responseStart),
            htmlEnd: Math.round(nav.responseEnd), domInteractive: Math.round(nav.domInteractive),
            domContentLoaded: Math.round(nav.domContentLoadedEventStart), loadEvent: Math.round(nav.loadEventStart),
            script: pick(find((p) => p.startsWith('/assets/') && p.endsWith('.js'))),
            style: pick(find((p) => p.startsWith('/assets/') && p.endsWith('.css'))),
            status: pick(find((p) => p === '/api/status')), galleries: pick(find((p) => p === '/api/galleries')),
            itemsFirst: pick(find((p, q) => p.endsWith('/items') && q.includes('limit='))),
            itemsWhole: pick(find((p, q) => p.endsWith('/items') && !q.includes('limit='))),
            firstContentfulPaint: paints['first-contentful-paint'] || null, marks,
            tilesAtPaint: window.__tilesAtPaint, painted: Math.round(window.__paintedAt) });
        })()
        """

    /// The load average over the last minute, as `/proc/loadavg` says.
    static func loadAverage() -> String {
        let text = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? ""
        return text.split(separator: " ").first.map(String.init) ?? "null"
    }

    private static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    private static func list(_ values: [Double]) -> String { "[" + values.map(format).joined(separator: ", ") + "]" }

    private static func format(_ value: Double) -> String { String(format: "%.1f", value) }
}
