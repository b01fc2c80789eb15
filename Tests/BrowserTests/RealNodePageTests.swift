import Foundation
import GalleryTestSupport
import Testing

/// The page served by a real node (`gallery serve --http`), not the fake: it shows what the
/// command line lists, a real drag reorders the node's gallery, and a change made by the command
/// line appears on the page.
@Suite("Gallery page on a real node", .serialized, .enabled(if: BrowserBinary.testsEnabled, "needs Chromium (see README set-up)"))
struct RealNodePageTests {
    /// The item IDs of gallery `name`, as `gallery -C DIR list --json` shows them.
    static func ids(_ directory: URL, _ name: String) throws -> [String] {
        let result = try GalleryProcess.run(["-C", directory.path, "list", name, "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        return (object?["items"] as? [[String: Any]] ?? []).map { $0["id"] as? String ?? "" }
    }

    /// A page condition: the grid's captions, in order, are `titles` (comma-joined).
    static func titlesAre(_ titles: String) -> String {
        "[...document.querySelectorAll('#grid .tile:not(.failed)')].map(t => t.querySelector('.caption').textContent).join(',') === '\(titles)'"
    }

    @Test("A real node's page: its items in order, a drag reorders them on the node, a CLI add appears live")
    func reorderOnRealNode() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("gallery-page-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: base) }
        let directory = base.appendingPathComponent("alice")
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        let node = try ServeProcess([directory.path, "--name", "alice", "--http"])
        defer { node.stop() }
        let link = try #require(node.standardOutput.split(separator: "\n").first { $0.hasPrefix("web: ") }?.dropFirst(5))
        // The demo's real pictures, so that the page shows them.
        let images = GalleryProcess.repositoryRoot.appendingPathComponent("demo/images")
        let files = ["rose.jpg", "wizard.png", "sunset.png", "granite.gif", "lagoon.png"].map { images.appendingPathComponent($0).path }
        #expect(try GalleryProcess.run(["-C", directory.path, "add"] + files.prefix(4)).status == 0)
        let ids = try Self.ids(directory, "alice")
        #expect(ids.count == 4)

        let browser = try Browser.launch()
        defer { browser.close() }
        let page = try browser.newPage(url: String(link))
        var passed = false
        defer {
            if !passed {
                let folder = FileManager.default.temporaryDirectory.appendingPathComponent("gallery-browser-screenshots")
                try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                try? page.screenshot(to: folder.appendingPathComponent("real-node-reorder.png"))
            }
        }
        try page.waitFor("window.__state && window.__state.ready && window.__state.connected")
        #expect(try page.evaluateString("location.search") == "", "the token left the address bar")
        #expect(try page.tileTitles() == "rose.jpg,wizard.png,sunset.png,granite.gif")
        try page.waitFor("[...document.querySelectorAll('#grid img')].filter(i => i.complete && i.naturalWidth > 0).length === 4")

        // Item 0 dropped on the left part of item 3: it lands before it.
        _ = try page.dragAndDrop(from: BrowserPage.tile(ids[0]), to: page.point(in: BrowserPage.tile(ids[3]), fx: 0.2))
        let deadline = Date().addingTimeInterval(10)
        while try Self.ids(directory, "alice") != [ids[1], ids[2], ids[0], ids[3]], Date() < deadline { usleep(50_000) }
        #expect(try Self.ids(directory, "alice") == [ids[1], ids[2], ids[0], ids[3]])
        try page.waitFor(Self.titlesAre("wizard.png,sunset.png,rose.jpg,granite.gif"))

        // A change made with the command line arrives on the page through the event stream.
        #expect(try GalleryProcess.run(["-C", directory.path, "add", files[4], "--at", "0"]).status == 0)
        try page.waitFor(Self.titlesAre("lagoon.png,wizard.png,sunset.png,rose.jpg,granite.gif"))
        passed = true
    }
}
