import Foundation
import GalleryTestSupport
import Testing

/// The node that added the pictures is gone for good (SIGKILL) after its thumbnails replicated:
/// the other node's page still paints every tile from the replicated thumbnails, and its viewer
/// shows the 1280 px one while saying where the original is (real `gallery serve --http`
/// processes, headless Chromium, real mouse and key events).
@Suite("Gallery pages on real nodes: the adding node killed", .serialized,
       .enabled(if: BrowserBinary.testsEnabled, "needs Chromium (see README set-up)"))
struct RealOfflineSourceTests {
    /// The path of a thumbnail of `hash` of `size` in `node`'s store of derived blobs.
    static func thumbnailPath(_ hash: String, _ size: Int, on node: RealNode) -> String {
        node.directory.appendingPathComponent("blobs/derived/\(hash.prefix(2))/\(hash)-\(size).jpg").path
    }

    /// Every tile of the grid (`count` of them) shows a loaded thumbnail, and none says why it has no image.
    static func everyTilePainted(_ count: Int) -> String {
        "(() => { const tiles = [...document.querySelectorAll('#grid .tile')]; return tiles.length === \(count) && tiles.every(t => {"
            + " const img = t.querySelector('img'); return !!img && !t.querySelector('.missing') && !t.classList.contains('failed')"
            + " && img.getAttribute('src').startsWith('/thumbnails/') && img.complete && img.naturalWidth > 0; }); })()"
    }

    @Test("bob adds 8 photos; alice gets the ops and every thumbnail (waited for as file events); bob is killed with SIGKILL; alice's page paints every tile, no original asked; Enter on a tile opens the viewer on the 1280 px thumbnail, saying the original is on bob, offline")
    func gridAndViewerWithSourceKilled() throws {
        var options = Browser.Options()
        options.windowSize = (1440, 900)
        try RealSpace.run("real-offline-source", options: options) { space in
            let alice = try space.node("alice")
            let bob = try space.node("bob", peers: [alice])
            // The first is larger than the viewer's 1280 px thumbnail; the others small (a debug build's
            // decoder makes their thumbnails in a fraction of the time), one in three portrait.
            let pictures = (0..<8).map { index in
                index == 0 ? RealPictures.png(width: 1_400, height: 875, palette: 0)
                    : RealPictures.png(width: index % 3 == 1 ? 320 : 560, height: index % 3 == 1 ? 400 : 350, palette: index)
            }
            let hashes = pictures.map(RealNodeLiveTests.sha256)
            try bob.gallery(["add"] + pictures.enumerated().map { try space.file("p\($0.offset).png", $0.element) })

            // alice receives the ops and both thumbnails of every photo: woken by her folder's
            // events (each thumbnail written and renamed into place), not by a sleep.
            let wanted = hashes.flatMap { hash in [320, 1280].map { Self.thumbnailPath(hash, $0, on: alice) } }
            let replicated = FolderEvents.wait(under: alice.directory, timeout: 120) {
                wanted.allSatisfy { FileManager.default.fileExists(atPath: $0) }
            }
            try #require(replicated, "alice lacks \(wanted.filter { !FileManager.default.fileExists(atPath: $0) })")
            let ids = try alice.ids("bob")
            #expect(ids.count == 8, "alice lists \(ids)")
            // The originals stayed on bob.
            for hash in hashes {
                #expect(!FileManager.default.fileExists(atPath: alice.directory.appendingPathComponent("blobs/\(hash.prefix(2))/\(hash)").path))
            }

            let killed = bob.process?.stop(signal: SIGKILL)
            #expect(killed != nil, "bob was not running")
            // alice sees the link end (the kernel closes bob's sockets).
            let linkEnded = try alice.waitUntil { node in
                let peers = try JSONSerialization.jsonObject(with: Data(try node.gallery("peers", "--json").stdout.utf8)) as? [[String: Any]]
                return !(peers ?? []).contains { $0["name"] as? String == "bob" && $0["state"] as? String == "live" }
            }
            #expect(linkEnded, "alice still lists bob as live")

            let page = try space.open(alice, newWindow: false) { try $0.recordRequests() }
            try page.click(".gallery-row[data-gallery=bob]")
            try page.waitFor(Self.everyTilePainted(8), timeout: .seconds(30))
            #expect(try page.evaluate("document.getElementById('grid').textContent.includes('unavailable')") as? Bool == false)
            let grid = page.takeRequests()
            #expect(RealViewerTests.paths(grid, "/blobs/").isEmpty, "the grid asked for originals: \(RealViewerTests.paths(grid, "/blobs/"))")
            #expect(Set(RealViewerTests.paths(grid, "/thumbnails/")) == Set(hashes.map { "/thumbnails/\($0)/320" }), "\(grid.map(\.url))")
            GalleryViewerTests.keep(page, "real-offline-grid")

            // The viewer, with real input: a click focuses the first tile, Enter opens it.
            try page.click(BrowserPage.tile(ids[0]))
            try page.waitFor("document.activeElement && document.activeElement.dataset.id === '\(ids[0])'")
            try page.press(.enter)
            let offline = "v.open && v.id === '\(ids[0])' && v.showing === 'thumbnail' && typeof v.reason === 'string' && v.reason.startsWith('on bob, offline')"
            try page.waitFor(GalleryViewerTests.viewer(offline), timeout: .seconds(20))
            #expect(try page.evaluate("document.querySelector('#viewer .viewer-image').naturalWidth") as? Int == 1_280)
            #expect(try page.evaluate("document.querySelector('#viewer .viewer-image').naturalHeight") as? Int == 800)
            #expect(try page.evaluateString("document.querySelector('#viewer .viewer-image').getAttribute('src')") == "/thumbnails/\(hashes[0])/1280")
            let status = try page.evaluateString("document.getElementById('viewer').textContent") ?? ""
            #expect(status.contains("Original unavailable: on bob, offline"), "\(status)")
            GalleryViewerTests.keep(page, "real-offline-viewer")
        }
    }
}
