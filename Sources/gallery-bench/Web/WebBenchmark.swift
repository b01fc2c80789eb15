import Foundation
import GalleryTestSupport

/// `gallery-bench web`: the web page on real nodes (`gallery serve --http`) in headless Chromium.
///
/// 1. A gallery of `--items` (10,000) on node A: milliseconds from navigation to the grid painted (the
///    page records it itself, from a script DevTools adds before the page's own), frame times of
///    scrolling through it, the page's JS heap and its renderer's resident memory.
/// 2. `--samples` (200) moves, each sent to node B's web API from B's page, and the moment A's page
///    has the tile in its new place (a MutationObserver on A's grid): both stamped with
///    `performance.timeOrigin + performance.now()` in one browser, so one clock.
/// 3. `GET /blobs/HASH` of a `--blob-mib` (256) MiB blob against this machine's raw loopback TCP,
///    measured in the same run, best of three each.
/// 4. `--streams` (1,000) event streams held open on node A: the page's requests on a fresh
///    connection before and while they are open (best of five each), the page opened in Chromium
///    while they are open, and A's resident memory per open stream.
/// 5. The paint (`PaintBenchmark`): `--paint-runs` (5) repetitions, each opening the `--items` gallery
///    and a `--reference-items` (300) one in new tabs, alternated, by the token link and by the
///    bookmarked address. `--only paint` runs this part alone.
/// Prints one JSON line per part. Bounded: every wait has a deadline, every process is stopped.
enum WebBenchmark {
    struct Options {
        var items = 10_000
        var samples = 200
        var blobMiB = 256
        var streams = 1_000
        var paintRuns = 5
        var referenceItems = 300
        var onlyPaint = false
    }

    static func run(_ arguments: [String]) throws -> [String] {
        let options = try parse(arguments)
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("gallery-bench-web-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let nodes = try WebBenchNodes(root: root, items: options.items, reference: min(options.referenceItems, options.items))
        defer { nodes.stop() }
        guard BrowserBinary.path != nil else { throw BenchFailure.failed("web: no Chromium (\(BrowserBinary.installHint))") }
        var browserOptions = Browser.Options()
        browserOptions.extraArguments = ["--enable-precise-memory-info"]
        browserOptions.commandTimeout = .seconds(60)
        let browser = try Browser.launch(browserOptions)
        defer { browser.close() }
        let paint = try PaintBenchmark.run(browser, nodes, items: options.items, reference: min(options.referenceItems, options.items),
                                           repetitions: options.paintRuns)
        if options.onlyPaint { return paint }
        var lines = [try grid(browser, nodes, options)]
        lines.append(try liveMoves(browser, nodes, options))
        lines.append(try blob(nodes, options, root: root))
        lines.append(try openStreams(browser, nodes, options))
        return lines + paint
    }

    /// Part 1: painted, scrolling, memory.
    private static func grid(_ browser: Browser, _ nodes: WebBenchNodes, _ options: Options) throws -> String {
        let page = try browser.newPage(url: "about:blank")
        // Runs before the page's script on every document: stamps the first frame after the grid has
        // tiles for every item loaded.
        _ = try page.send("Page.addScriptToEvaluateOnNewDocument", ["source": """
            (function watch() {
              const s = window.__state;
              if (s && s.itemCount === \(options.items) && document.querySelector('#grid .tile')) {
                requestAnimationFrame(() => { window.__paintedAt = performance.now(); });
              } else { requestAnimationFrame(watch); }
            })();
            """])
        let started = ContinuousClock.now
        try page.navigate(to: nodes.a.link, timeout: .seconds(60))
        try page.waitFor("window.__paintedAt !== undefined", timeout: .seconds(60))
        let wall = Stopwatch.seconds(started.duration(to: ContinuousClock.now)) * 1000
        // The page may paint its first screen before the whole list is in: scroll once it is.
        try page.waitFor("window.__state && __state.ready", timeout: .seconds(60))
        let painted = try number(page, "window.__paintedAt")
        let scroll = try number(page, """
            (async () => { const s = document.getElementById('scroller'); const t0 = performance.now();
              for (let i = 1; i <= 40; i++) { s.scrollTop = i * s.scrollHeight / 40; await new Promise(r => requestAnimationFrame(r)); }
              return (performance.now() - t0) / 40; })()
            """)
        let bottomShown = try page.evaluate("[...document.querySelectorAll('#grid .tile')].some(t => t.dataset.id === \(BrowserPage.jsString(nodes.lastID)))") as? Bool ?? false
        guard bottomShown else { throw BenchFailure.failed("web: scrolled to the end, the last tile is not in the grid") }
        try page.evaluate("document.getElementById('scroller').scrollTop = 0; new Promise(r => setTimeout(r, 500))")
        let fetched = try number(page, "__state.fetchMs"), built = try number(page, "__state.renderMs")
        let heap = try number(page, "performance.memory.usedJSHeapSize") / 1_048_576
        let renderer = RendererMemory.largestResident(under: browser.processIdentifier).map { Double($0) / 1_048_576 }
        return "{\"workload\": \"web-grid\", \"items\": \(options.items), \"paintedMs\": \(format(painted)), "
            + "\"openToPaintedWallMs\": \(format(wall)), \"itemsFetchMs\": \(format(fetched)), \"tilesBuiltMs\": \(format(built)), \"scrollFrameMs\": \(format(scroll)), "
            + "\"jsHeapMiB\": \(format(heap)), \"rendererRSSMiB\": \(renderer.map(format) ?? "null")}"
    }

    /// Part 2: a move sent to B, seen moved on A's page.
    private static func liveMoves(_ browser: Browser, _ nodes: WebBenchNodes, _ options: Options) throws -> String {
        let pageA = try browser.newPage(url: nodes.a.link)
        try pageA.waitFor("window.__state && __state.ready && __state.connected && __state.itemCount === \(options.items)", timeout: .seconds(60))
        let pageB = try browser.newPage(url: nodes.b.link, newWindow: true)
        try pageB.waitFor("window.__state && __state.ready && __state.connected", timeout: .seconds(30))
        var latencies: [Double] = []
        for sample in 0..<options.samples {
            let id = try pageA.evaluateString("document.querySelectorAll('#grid .tile')[\(3 + sample % 8)].dataset.id") ?? ""
            let quoted = BrowserPage.jsString(id)
            try pageA.evaluate("""
                window.__moved = new Promise((resolve) => {
                  const grid = document.getElementById('grid');
                  const observer = new MutationObserver(() => {
                    const first = grid.querySelector('.tile');
                    if (first && first.dataset.id === \(quoted)) { observer.disconnect(); resolve(performance.timeOrigin + performance.now()); }
                  });
                  observer.observe(grid, { childList: true, subtree: true });
                }); true
                """)
            let sent = try number(pageB, """
                (async () => { const t0 = performance.timeOrigin + performance.now();
                  const r = await fetch('/api/items/move', { method: 'POST', headers: { 'Content-Type': 'application/json' },
                    body: JSON.stringify({ items: [\(quoted)], to: 'alice', index: 0 }) });
                  if (!r.ok) throw new Error('move: ' + r.status); return t0; })()
                """)
            let seen = try number(pageA, "Promise.race([window.__moved, new Promise((_, no) => setTimeout(() => no(new Error('not moved in 10 s')), 10000))])")
            latencies.append(seen - sent)
        }
        latencies.sort()
        func percentile(_ p: Double) -> Double { latencies[min(latencies.count - 1, Int((Double(latencies.count) * p).rounded(.up)) - 1)] }
        return "{\"workload\": \"web-live\", \"items\": \(options.items), \"samples\": \(latencies.count), "
            + "\"p50Ms\": \(format(percentile(0.5))), \"p99Ms\": \(format(percentile(0.99))), \"maxMs\": \(format(latencies.last ?? 0))}"
    }

    /// Part 3: the blob over HTTP vs raw loopback TCP.
    private static func blob(_ nodes: WebBenchNodes, _ options: Options, root: URL) throws -> String {
        let bytes = options.blobMiB * 1_048_576
        let hash = try nodes.addBlob(bytes: bytes, in: root)
        var http = Double.infinity, raw = Double.infinity
        for _ in 0..<3 {
            let download = try BlobDownload.measure(port: nodes.a.webPort, token: nodes.a.token, hash: hash)
            guard download.bytes == bytes else { throw BenchFailure.failed("web: the blob is \(download.bytes) bytes") }
            http = min(http, download.seconds)
            raw = min(raw, try LoopbackThroughput.measure(byteCount: bytes, chunkByteCount: 256 * 1024))
        }
        let httpRate = Double(bytes) / http / 1_048_576, rawRate = Double(bytes) / raw / 1_048_576
        return "{\"workload\": \"web-blob\", \"bytes\": \(bytes), \"httpMiBPerSecond\": \(format(httpRate)), "
            + "\"loopbackMiBPerSecond\": \(format(rawRate)), \"ratio\": \(String(format: "%.3f", httpRate / rawRate))}"
    }

    /// Part 4: the page while `--streams` event streams are open.
    private static func openStreams(_ browser: Browser, _ nodes: WebBenchNodes, _ options: Options) throws -> String {
        let port = nodes.a.webPort, token = nodes.a.token
        var before = Double.infinity, during = Double.infinity
        for _ in 0..<5 { before = min(before, try OpenStreams.pageLoad(port: port, token: token)) }
        let residentBefore = OpenStreams.residentKiB(of: nodes.a.process.processID)
        let streams = try OpenStreams.open(options.streams, port: port, token: token)
        defer { streams.forEach { $0.close() } }
        Thread.sleep(forTimeInterval: 0.5)
        let residentDuring = OpenStreams.residentKiB(of: nodes.a.process.processID)
        for _ in 0..<5 { during = min(during, try OpenStreams.pageLoad(port: port, token: token)) }
        let page = try browser.newPage(url: "about:blank")
        let started = ContinuousClock.now
        try page.navigate(to: nodes.a.link, timeout: .seconds(60))
        try page.waitFor("window.__state && __state.ready && __state.connected && __state.itemCount === \(options.items)", timeout: .seconds(60))
        let ready = Stopwatch.seconds(started.duration(to: ContinuousClock.now)) * 1000
        var perStream: Double?
        if let residentBefore, let residentDuring { perStream = Double(residentDuring - residentBefore) / Double(options.streams) }
        return "{\"workload\": \"web-streams\", \"streams\": \(options.streams), \"pageRequestsMsBefore\": \(format(before)), "
            + "\"pageRequestsMsDuring\": \(format(during)), \"browserOpenToReadyMsDuring\": \(format(ready)), "
            + "\"nodeResidentKiBPerStream\": \(perStream.map(format) ?? "null")}"
    }

    private static func number(_ page: BrowserPage, _ expression: String) throws -> Double {
        guard let value = try page.evaluate(expression) as? Double else {
            throw BenchFailure.failed("web: no number from \(expression.prefix(60))")
        }
        return value
    }

    private static func format(_ value: Double) -> String { String(format: "%.1f", value) }

    private static func parse(_ arguments: [String]) throws -> Options {
        var options = Options()
        var rest = arguments[...]
        while let flag = rest.popFirst() {
            if flag == "--only" {
                guard rest.popFirst() == "paint" else { throw BenchFailure.usage("web: --only takes paint") }
                options.onlyPaint = true
                continue
            }
            guard let text = rest.popFirst(), let value = Int(text), value > 0 else {
                throw BenchFailure.usage("web: \(flag) needs a positive number")
            }
            switch flag {
            case "--items": options.items = max(value, 20)
            case "--samples": options.samples = value
            case "--blob-mib": options.blobMiB = value
            case "--streams": options.streams = value
            case "--paint-runs": options.paintRuns = value
            case "--reference-items": options.referenceItems = value
            default: throw BenchFailure.usage("web: unknown option \(flag)")
            }
        }
        return options
    }
}
