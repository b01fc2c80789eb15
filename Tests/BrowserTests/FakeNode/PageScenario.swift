import Foundation
import GalleryTestSupport

/// One page test's world: fake nodes behind HTTP (one mesh, one space unless told), a launched
/// `Browser`, and screenshots on failure.
///
/// `run` starts the browser, runs the body, saves a screenshot of every page the body opened when it
/// throws (to `$TMPDIR/gallery-browser-screenshots/NAME-N.png`, or always when
/// `GALLERY_BROWSER_SCREENSHOTS` names a folder), then closes the browser and stops every server.
final class PageScenario: @unchecked Sendable {
    /// The browser.
    let browser: Browser
    private let lock = NSLock()
    private var servers: [FakeNodeServer] = []
    private var pages: [BrowserPage] = []

    private init(browser: Browser) {
        self.browser = browser
    }

    /// A fake node named `name` with `count` seeded pictures in its own gallery, served on an ephemeral port.
    func node(_ name: String, pictures count: Int = 0, space: String = "5ace5ace5ace5ace5ace5ace5ace5ace") throws -> FakeNodeServer {
        let node = FakeNode(name: name, space: space)
        if count > 0 {
            node.seed(name, (0..<count).map { index in
                let landscape = index % 3 != 1
                let bytes = TestPictures.png(width: landscape ? 144 : 96, height: landscape ? 96 : 128, palette: index + name.count)
                return (title: "\(name)-\(index)", bytes: bytes, aspectRatio: landscape ? 1.5 : 0.75)
            })
        }
        let server = try FakeNodeServer(node: node)
        lock.withLock { servers.append(server) }
        return server
    }

    /// Makes `nodes` one mesh: each can fetch bytes from, and delete sources on, the others.
    func mesh(_ nodes: FakeNode...) {
        for node in nodes {
            node.condition.withLock { for other in nodes where other !== node { node.peers[other.name] = other } }
        }
    }

    /// Restarts `server`: stops it and serves its node again on the same port.
    func restart(_ server: FakeNodeServer, while down: () throws -> Void = {}) throws -> FakeNodeServer {
        server.stop()
        try down()
        let again = try FakeNodeServer(node: server.node, port: server.port)
        lock.withLock { servers.append(again) }
        return again
    }

    /// Opens `server`'s page through its token link, in a new tab or window, and waits until it is ready.
    func open(_ server: FakeNodeServer, newWindow: Bool = false) throws -> BrowserPage {
        let page = try browser.newPage(url: server.pageURL, newWindow: newWindow)
        lock.withLock { pages.append(page) }
        try page.waitFor("window.__state && window.__state.ready && window.__state.connected")
        return page
    }

    /// Runs `body` in a fresh scenario named `name`; prints how long it took.
    static func run(_ name: String, options: Browser.Options = Browser.Options(), _ body: (PageScenario) throws -> Void) throws {
        let started = ContinuousClock.now
        let browser = try Browser.launch(options)
        let scenario = PageScenario(browser: browser)
        let launched = ContinuousClock.now
        var failed = true
        defer {
            if failed || ProcessInfo.processInfo.environment["GALLERY_BROWSER_SCREENSHOTS"] != nil {
                scenario.saveScreenshots(name)
            }
            browser.close()
            scenario.lock.withLock { scenario.servers }.forEach { $0.stop() }
        }
        try body(scenario)
        failed = false
        print("page test \(name): browser launch \(launched - started), scenario \(ContinuousClock.now - launched)")
    }

    /// Saves a PNG of every page opened.
    private func saveScreenshots(_ name: String) {
        let folder = ProcessInfo.processInfo.environment["GALLERY_BROWSER_SCREENSHOTS"].map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("gallery-browser-screenshots")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for (index, page) in lock.withLock({ pages }).enumerated() {
            let file = folder.appendingPathComponent("\(name)-\(index + 1).png")
            do {
                try page.screenshot(to: file)
                print("page test \(name): screenshot saved to \(file.path)")
            } catch {
                print("page test \(name): no screenshot (\(error.localizedDescription))")
            }
        }
    }
}
