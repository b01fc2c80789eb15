import Foundation
import GalleryTestSupport

/// `gallery-bench viewer [--photos 300] [--samples 15] [--pixels 6000x4000]`: the page's thumbnails
/// and its viewer on real nodes in headless Chromium (1440x900, 1 device pixel per CSS pixel). Alice
/// adds `--photos` generated JPEGs of `--pixels` (quality 90); bob syncs them, with their thumbnails
/// but none of the originals; bob's page shows alice's gallery.
///
/// 1. `viewer-grid`: bytes the page downloaded (DevTools' Network events: headers and bodies) for
///    the first screen, until its requests settle; then for scrolling to the bottom (40 CSS px per
///    frame) and settling again; the longest frames while scrolling (requestAnimationFrame
///    intervals, and Long Animation Frames of 50 ms or more); the renderer's resident memory and the
///    JS heap after it; the number of originals the grid asked for (0 is right).
/// 2. `viewer-open`: `--samples` photos, each opened from the grid with Enter on its tile (a real
///    key event) and only alice holding its original: milliseconds until the 1280 px thumbnail is
///    on screen and until the original is (fetched by bob from alice, read with progress, decoded),
///    both as the page measures them from the key's handler; p50, p90 and max; and the p50s of
///    the parts (the thumbnail's request, the original's response head and last byte).
/// One JSON line each, with the load average before and after. Every wait is bounded; every process
/// is stopped.
enum ViewerBenchmark {
    static func run(_ arguments: [String]) throws -> [String] {
        var photos = 300, samples = 15, pixels = (width: 6000, height: 4000)
        var rest = arguments[...]
        while let flag = rest.popFirst() {
            if flag == "--pixels" {
                let parts = (rest.popFirst() ?? "").split(separator: "x").compactMap { Int($0) }
                guard parts.count == 2, (16...8000).contains(parts[0]), (16...8000).contains(parts[1]) else {
                    throw BenchFailure.usage("viewer: --pixels needs WIDTHxHEIGHT, each 16 to 8000")
                }
                pixels = (parts[0], parts[1])
                continue
            }
            guard let value = rest.popFirst().flatMap(Int.init), value > 0 else { throw BenchFailure.usage("viewer: \(flag) needs a positive number") }
            switch flag {
            case "--photos": photos = max(value, 20)
            case "--samples": samples = value
            default: throw BenchFailure.usage("viewer: unknown option \(flag)")
            }
        }
        samples = min(samples, photos / 4)
        guard BrowserBinary.path != nil else { throw BenchFailure.failed("viewer: no Chromium (\(BrowserBinary.installHint))") }
        let loadBefore = loadAverage()
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("gallery-bench-viewer-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let nodes = try ViewerBenchNodes(root: root, photos: photos, pixels: pixels) { writeLine($0, to: .standardError) }
        defer { nodes.stop() }
        var options = Browser.Options()
        options.windowSize = (1440, 900)
        options.extraArguments = ["--enable-precise-memory-info", "--force-device-scale-factor=1"]
        options.commandTimeout = .seconds(60)
        let browser = try Browser.launch(options)
        defer { browser.close() }
        let page = try browser.newPage(url: "about:blank")
        try page.recordRequests()
        // Room for every picture's resource timing (the default keeps 250 entries).
        try page.send("Page.addScriptToEvaluateOnNewDocument", ["source": "performance.setResourceTimingBufferSize(100000);"])
        let ledger = NetworkLedger(page: page)
        let grid = try gridLine(page, ledger, browser, nodes, photos: photos, load: loadBefore)
        let open = try openLine(page, ledger, nodes, photos: photos, samples: samples)
        return [grid, open + ", \"loadAverage\": [\(format(loadBefore)), \(format(loadAverage()))]}"]
    }

    /// Part 1: the first screen, the scroll, memory.
    private static func gridLine(_ page: BrowserPage, _ ledger: NetworkLedger, _ browser: Browser, _ nodes: ViewerBenchNodes,
                                 photos: Int, load: Double) throws -> String {
        try page.navigate(to: nodes.bob.link + "#alice", timeout: .seconds(60))
        try page.waitFor("window.__state && __state.ready && __state.itemCount === \(photos)", timeout: .seconds(60))
        try page.waitFor(visibleTilesLoaded, timeout: .seconds(120))
        try ledger.waitUntilIdle()
        let firstScreen = ledger.bytes(), firstImages = ledger.bytes("/thumbnails/"), firstRequests = ledger.all.count
        let frames = try page.evaluate("""
            (async () => {
              const s = document.getElementById('scroller'); const long = [];
              const observer = new PerformanceObserver((list) => { for (const e of list.getEntries()) long.push(e); });
              try { observer.observe({ type: 'long-animation-frame' }); } catch (_) {}
              const deltas = []; let last = await new Promise(r => requestAnimationFrame(r));
              while (s.scrollTop + s.clientHeight < s.scrollHeight - 1) {
                s.scrollTop += 40;
                const now = await new Promise(r => requestAnimationFrame(r));
                deltas.push(now - last); last = now;
              }
              await new Promise(r => setTimeout(r, 100)); observer.disconnect();
              deltas.sort((a, b) => a - b);
              return { frames: deltas.length, max: deltas[deltas.length - 1], p95: deltas[Math.floor(deltas.length * 0.95)],
                       p50: deltas[Math.floor(deltas.length / 2)], over50: deltas.filter(d => d > 50).length,
                       longFrames: long.length, longestFrame: long.length ? Math.max(...long.map(e => e.duration)) : 0,
                       // Where each long frame's time went: scripts (by invoker), then style and layout, then paint.
                       longParts: long.map(e => ({ ms: Math.round(e.duration), blocking: Math.round(e.blockingDuration),
                         scripts: e.scripts.map(x => `${x.invoker || x.invokerType}:${Math.round(x.duration)}`).join(' '),
                         beforeRender: Math.round((e.renderStart || e.startTime + e.duration) - e.startTime),
                         styleLayout: e.styleAndLayoutStart ? Math.round(e.startTime + e.duration - e.styleAndLayoutStart) : 0,
                         render: e.renderStart ? Math.round((e.styleAndLayoutStart || e.renderStart) - e.renderStart) : 0 })) };
            })()
            """) as? [String: Any] ?? [:]
        try page.waitFor(visibleTilesLoaded, timeout: .seconds(120))
        try ledger.waitUntilIdle()
        let total = ledger.bytes()
        let heap = (try page.evaluate("performance.memory.usedJSHeapSize") as? Double ?? 0) / 1_048_576
        let renderer = RendererMemory.largestResident(under: browser.processIdentifier).map { Double($0) / 1_048_576 }
        let number = { (key: String) in (frames[key] as? NSNumber)?.doubleValue ?? -1 }
        var fields: [String] = []
        fields.append("\"workload\": \"viewer-grid\", \"photos\": \(photos)")
        fields.append("\"pixels\": \"\(nodes.pixels.width)x\(nodes.pixels.height)\"")
        fields.append("\"photoBytesMean\": \(nodes.photoBytes.reduce(0, +) / photos)")
        fields.append("\"firstScreenBytes\": \(firstScreen), \"firstScreenThumbnailBytes\": \(firstImages)")
        fields.append("\"firstScreenRequests\": \(firstRequests), \"scrollBytes\": \(total - firstScreen), \"allBytes\": \(total)")
        fields.append("\"thumbnailRequests\": \(ledger.count("/thumbnails/")), \"originalRequests\": \(ledger.count("/blobs/"))")
        fields.append("\"scrollFrames\": \(Int(number("frames"))), \"frameP50Ms\": \(format(number("p50")))")
        fields.append("\"frameP95Ms\": \(format(number("p95"))), \"frameMaxMs\": \(format(number("max")))")
        fields.append("\"framesOver50Ms\": \(Int(number("over50"))), \"longAnimationFrames\": \(Int(number("longFrames")))")
        fields.append("\"longestAnimationFrameMs\": \(format(number("longestFrame")))")
        let parts = (try? JSONSerialization.data(withJSONObject: frames["longParts"] ?? [])).map { String(decoding: $0, as: UTF8.self) } ?? "[]"
        fields.append("\"longAnimationFrameParts\": \(parts)")
        fields.append("\"rendererRSSMiB\": \(renderer.map(format) ?? "null"), \"jsHeapMiB\": \(format(heap)), \"loadAverage\": \(format(load))")
        return "{" + fields.joined(separator: ", ") + "}"
    }

    /// Every tile whose frame is on screen shows its decoded image.
    static let visibleTilesLoaded = """
        (() => { const view = document.getElementById('scroller').getBoundingClientRect();
          return [...document.querySelectorAll('#grid .tile')].filter(t => { const r = t.getBoundingClientRect();
            return r.bottom > view.top && r.top < view.bottom; })
            .every(t => { const i = t.querySelector('img'); return i && i.complete && i.naturalWidth > 0; }); })()
        """

    /// Part 2: the viewer opened on photos only alice holds.
    private static func openLine(_ page: BrowserPage, _ ledger: NetworkLedger, _ nodes: ViewerBenchNodes,
                                 photos: Int, samples: Int) throws -> String {
        var thumbnails: [Double] = [], originals: [Double] = [], responses: [Double] = [], bodies: [Double] = []
        var thumbnailRequests: [Double] = []
        let held = nodes.originalsOnBob()
        // Spread out, never neighbours: the viewer fetches its neighbours' 1280 px thumbnails ahead.
        let stride = max(3, photos / samples)
        for sample in 0..<samples {
            let index = (sample * stride + 1) % photos
            try page.evaluate("focusTile(S.items[\(index)].id); true")
            try page.waitFor("document.activeElement && document.activeElement.classList.contains('tile')")
            try page.press(.enter)
            try page.waitFor("__state.viewer.open && __state.viewer.id === S.items[\(index)].id && __state.viewer.originalMs !== null"
                             + " && __state.viewer.thumbnailMs !== null", timeout: .seconds(120))
            thumbnails.append(try page.evaluate("__state.viewer.thumbnailMs") as? Double ?? -1)
            originals.append(try page.evaluate("__state.viewer.originalMs") as? Double ?? -1)
            responses.append(try page.evaluate("__state.viewer.originalResponseMs") as? Double ?? -1)
            bodies.append(try page.evaluate("__state.viewer.originalBytesMs") as? Double ?? -1)
            // The 1280 px thumbnail's request, from the resource timing of its URL.
            thumbnailRequests.append(try page.evaluate("""
                (u => { const e = performance.getEntriesByName(u).pop(); return e ? e.responseEnd - e.startTime : -1; })
                (location.origin + '/thumbnails/' + S.items[\(index)].hash + '/1280')
                """) as? Double ?? -1)
            try page.press(.escape)
            try page.waitFor("!__state.viewer.open")
            ledger.drain()
        }
        let fetched = nodes.originalsOnBob() - held
        func percentile(_ values: [Double], _ p: Double) -> Double {
            let sorted = values.sorted()
            return sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)]
        }
        var fields: [String] = []
        fields.append("\"workload\": \"viewer-open\", \"samples\": \(samples), \"originalsFetchedFromAlice\": \(fetched)")
        fields.append("\"thumbnail1280P50Ms\": \(format(percentile(thumbnails, 0.5))), \"thumbnail1280P90Ms\": \(format(percentile(thumbnails, 0.9)))")
        fields.append("\"thumbnail1280MaxMs\": \(format(thumbnails.max() ?? -1))")
        fields.append("\"originalP50Ms\": \(format(percentile(originals, 0.5))), \"originalP90Ms\": \(format(percentile(originals, 0.9)))")
        fields.append("\"originalMaxMs\": \(format(originals.max() ?? -1))")
        // Where the time goes (p50s): the 1280 px thumbnail's request; the original's response head
        // (bob fetching it from alice, then serving it) and its last byte read by the page; the rest
        // is making the blob: URL and decoding.
        fields.append("\"thumbnail1280RequestP50Ms\": \(format(percentile(thumbnailRequests, 0.5)))")
        fields.append("\"originalResponseP50Ms\": \(format(percentile(responses, 0.5))), \"originalBytesP50Ms\": \(format(percentile(bodies, 0.5)))")
        return "{" + fields.joined(separator: ", ")
    }

    /// The one-minute load average (`/proc/loadavg`), -1 when unknown.
    static func loadAverage() -> Double {
        guard let text = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8) else { return -1 }
        return Double(text.split(separator: " ").first ?? "") ?? -1
    }

    private static func format(_ value: Double) -> String { String(format: "%.1f", value) }
}
