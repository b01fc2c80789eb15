import Foundation
import GalleryTestSupport
import Testing

/// One browser test's world: a `TestWebServer`, a launched `Browser`, and screenshots on failure.
///
/// `run` launches both, runs the body, saves a screenshot of every page the body opened when it throws
/// (to `$TMPDIR/gallery-browser-screenshots/NAME-N.png`, or always when `GALLERY_BROWSER_SCREENSHOTS`
/// names a folder), then closes the browser and stops the server whatever happened.
struct BrowserScenario {
    /// The server the pages load from.
    let server: TestWebServer
    /// The browser.
    let browser: Browser
    /// Pages opened through `open`, for screenshots.
    private let pages = PageList()

    /// Opens the test page in a new tab or window as window `name`, and waits until its script ran.
    func open(name: String, newWindow: Bool = false) throws -> BrowserPage {
        let page = try browser.newPage(url: "\(server.origin)/?name=\(name)", newWindow: newWindow)
        pages.append(page)
        try page.waitFor("window.__state && window.__state.ready")
        return page
    }

    /// Runs `body` in a fresh scenario named `name`; prints how long it took.
    static func run(_ name: String, _ body: (BrowserScenario) throws -> Void) throws {
        let started = ContinuousClock.now
        let server = try TestWebServer()
        defer { server.stop() }
        let browser = try Browser.launch()
        defer { browser.close() }
        let launched = ContinuousClock.now
        let scenario = BrowserScenario(server: server, browser: browser)
        var failed = true
        defer {
            if failed || ProcessInfo.processInfo.environment["GALLERY_BROWSER_SCREENSHOTS"] != nil {
                scenario.saveScreenshots(name)
            }
        }
        try body(scenario)
        failed = false
        print("browser test \(name): launch \(launched - started), scenario \(ContinuousClock.now - launched) (\(browser.product))")
    }

    /// Saves a PNG of every page opened.
    private func saveScreenshots(_ name: String) {
        let folder = ProcessInfo.processInfo.environment["GALLERY_BROWSER_SCREENSHOTS"].map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("gallery-browser-screenshots")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for (index, page) in pages.all.enumerated() {
            let file = folder.appendingPathComponent("\(name)-\(index + 1).png")
            do {
                try page.screenshot(to: file)
                print("browser test \(name): screenshot saved to \(file.path)")
            } catch {
                print("browser test \(name): no screenshot (\(error.localizedDescription))")
            }
        }
    }
}

/// The pages a scenario opened (a reference, so that the non-mutating `open` can record them).
final class PageList: @unchecked Sendable {
    private let lock = NSLock()
    private var pages: [BrowserPage] = []

    /// Records a page.
    func append(_ page: BrowserPage) { lock.withLock { pages.append(page) } }

    /// The pages in the order opened.
    var all: [BrowserPage] { lock.withLock { pages } }
}
