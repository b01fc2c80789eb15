import Foundation
import GalleryTestSupport
import Testing

/// One page test on real nodes: `gallery serve --http` processes of one space (the first node's
/// secret, each later node dialing the ones named), one headless Chromium, and a screenshot of every
/// page opened when the test fails (to `$TMPDIR/gallery-browser-screenshots/NAME-N.png`, or always
/// when `GALLERY_BROWSER_SCREENSHOTS` names a folder). Every node and the browser are stopped at the end.
final class RealSpace: @unchecked Sendable {
    // `@unchecked Sendable`: used by one test at a time, from its own thread.
    let base: URL
    let browser: Browser
    private var nodes: [RealNode] = []
    private(set) var pages: [BrowserPage] = []

    private init(browser: Browser) {
        self.browser = browser
        base = FileManager.default.temporaryDirectory.appendingPathComponent("gallery-real-\(UUID().uuidString)")
    }

    /// Starts node `name` dialing `peers`; in another space (its own secret) when `foreign` is set.
    func node(_ name: String, peers: [RealNode] = [], foreign: Bool = false) throws -> RealNode {
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        var arguments: [String] = []
        if !foreign, let founder = nodes.first {
            arguments += ["--secret-file", founder.directory.appendingPathComponent("secret").path]
        }
        for peer in peers { arguments += ["--peer", peer.address] }
        let node = try RealNode(name, base: base, arguments: arguments)
        nodes.append(node)
        return node
    }

    /// Opens `node`'s page through its link (in a new window when asked) and waits until it is live;
    /// `prepare`, when given, runs on the blank page before it navigates (to record its requests).
    func open(_ node: RealNode, newWindow: Bool = true, prepare: ((BrowserPage) throws -> Void)? = nil) throws -> BrowserPage {
        let page = try browser.newPage(url: prepare == nil ? node.link : "about:blank", newWindow: newWindow)
        pages.append(page)
        if let prepare {
            try prepare(page)
            try page.navigate(to: node.link)
        }
        try page.waitFor("window.__state && window.__state.ready && window.__state.connected")
        return page
    }

    /// A file in the test's folder holding `bytes`; its path.
    func file(_ name: String, _ bytes: [UInt8]) throws -> String {
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        let url = base.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url.path
    }

    /// Runs `body` with a fresh space and browser named `name`.
    static func run(_ name: String, options: Browser.Options = Browser.Options(), _ body: (RealSpace) throws -> Void) throws {
        let browser = try Browser.launch(options)
        let space = RealSpace(browser: browser)
        var failed = true
        defer {
            if failed || ProcessInfo.processInfo.environment["GALLERY_BROWSER_SCREENSHOTS"] != nil {
                space.saveScreenshots(name)
            }
            browser.close()
            space.nodes.forEach { $0.stop() }
            try? FileManager.default.removeItem(at: space.base)
        }
        try body(space)
        failed = false
    }

    private func saveScreenshots(_ name: String) {
        let folder = ProcessInfo.processInfo.environment["GALLERY_BROWSER_SCREENSHOTS"].map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("gallery-browser-screenshots")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for (index, page) in pages.enumerated() {
            let file = folder.appendingPathComponent("\(name)-\(index + 1).png")
            if (try? page.screenshot(to: file)) != nil { print("real page test \(name): screenshot saved to \(file.path)") }
        }
    }
}

/// Pictures for real nodes: a small real PNG (so that the page shows it), optionally followed by
/// filler after its `IEND` (ignored by decoders) to reach a size, such as the demo's 24 MB image.
enum RealPictures {
    /// A `width`x`height` picture of palette `index`, `bytes` long at least (random filler after IEND).
    static func png(width: Int = 150, height: Int = 100, palette index: Int, bytes: Int = 0) -> [UInt8] {
        var png = TestPictures.png(width: width, height: height, palette: index)
        guard bytes > png.count else { return png }
        var generator = SystemRandomNumberGenerator()
        let words = (0..<(bytes - png.count + 7) / 8).map { _ in generator.next() as UInt64 }
        png += words.withUnsafeBytes { Array($0.prefix(bytes - png.count)) }
        return png
    }
}
