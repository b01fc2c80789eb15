import Foundation
import GalleryTestSupport
import Testing

/// Thumbnails and the viewer across real nodes (`gallery serve --http` processes, headless
/// Chromium, real mouse, key and touch events): bob's page shows alice's pictures from thumbnails
/// only, and its viewer fetches an original only alice holds.
@Suite("Gallery pages on real nodes: thumbnails and the viewer", .serialized,
       .enabled(if: BrowserBinary.testsEnabled, "needs Chromium (see README set-up)"))
struct RealViewerTests {
    /// The paths of `requests` (the node's own URLs) that start with `prefix`.
    static func paths(_ requests: [(url: String, bytes: Int)], _ prefix: String) -> [String] {
        requests.compactMap { URLComponents(string: $0.url)?.path }.filter { $0.hasPrefix(prefix) }
    }

    @Test("Pictures added on alice: bob's grid fetches only thumbnails, never /blobs; a double-click opens the viewer, which fetches the original from alice; arrows step; Escape closes onto the tile; a tap opens it on a phone")
    func viewerAcrossNodes() throws {
        var options = Browser.Options()
        options.windowSize = (1440, 900)
        try RealSpace.run("real-viewer", options: options) { space in
            let alice = try space.node("alice")
            let bob = try space.node("bob", peers: [alice])
            let pictures = (0..<6).map { RealPictures.png(width: 640, height: $0 % 3 == 1 ? 800 : 400, palette: $0) }
            try alice.gallery(["add"] + pictures.enumerated().map { try space.file("p\($0.offset).png", $0.element) })
            try #require(bob.waitUntil { try $0.ids("alice").count == 6 }, "the nodes did not sync")
            let ids = try bob.ids("alice")
            let hashes = pictures.map(RealNodeLiveTests.sha256)

            let page = try space.open(bob, newWindow: false) { try $0.recordRequests() }
            try page.click(".gallery-row[data-gallery=alice]")
            for index in 0..<6 { try page.waitFor(RealCrossNodeTests.showsImage(hashes[index], at: index), timeout: .seconds(30)) }
            let grid = page.takeRequests()
            #expect(Set(Self.paths(grid, "/thumbnails/")) == Set(hashes.map { "/thumbnails/\($0)/320" }), "\(grid.map(\.url))")
            #expect(Self.paths(grid, "/blobs/").isEmpty, "the grid fetched originals: \(Self.paths(grid, "/blobs/"))")

            // The viewer: the 1280 px thumbnail, then the original, which only alice held.
            try page.doubleClick(BrowserPage.tile(ids[0]))
            try page.waitFor(GalleryViewerTests.viewer("v.open && v.id === '\(ids[0])' && v.showing === 'original' && v.originalMs !== null"), timeout: .seconds(30))
            #expect(try page.evaluate("document.querySelector('.viewer-image').naturalWidth") as? Int == 640)
            #expect(try page.evaluateString("document.getElementById('viewer-title').textContent") == "p0.png")
            GalleryViewerTests.keep(page, "real-viewer-1440")
            try page.press(.arrowRight)
            try page.waitFor(GalleryViewerTests.viewer("v.id === '\(ids[1])' && v.showing === 'original' && v.originalMs !== null"), timeout: .seconds(30))
            #expect(try page.evaluate("document.querySelector('.viewer-image').naturalHeight") as? Int == 800)
            let viewer = page.takeRequests()
            #expect(Set(Self.paths(viewer, "/blobs/")) == Set([hashes[0], hashes[1]].map { "/blobs/\($0)" }), "\(viewer.map(\.url))")
            #expect(Self.paths(viewer, "/thumbnails/").contains("/thumbnails/\(hashes[0])/1280"))
            try page.press(.arrowLeft)
            try page.waitFor(GalleryViewerTests.viewer("v.id === '\(ids[0])'"))
            try page.press(.escape)
            try page.waitFor(GalleryViewerTests.viewer("!v.open"))
            #expect(try page.evaluateString("document.activeElement.dataset.id") == ids[0])

            // A phone: a tap on a tile opens the viewer.
            let phone = try space.open(bob)
            try phone.emulateViewport(width: 390, height: 844, scale: 2, mobile: true)
            // On a phone the galleries are in the drawer.
            try phone.tap("#drawer-open")
            try phone.waitFor("__state.drawerOpen && document.querySelector('#sidebar').getBoundingClientRect().left === 0")
            try phone.tap(".gallery-row[data-gallery=alice]")
            try phone.waitFor("document.getElementById('gallery-title').textContent === 'alice'")
            try phone.waitFor(RealCrossNodeTests.showsImage(hashes[2], at: 2), timeout: .seconds(30))
            GalleryViewerTests.keep(phone, "real-grid-390")
            try phone.tap(BrowserPage.tile(ids[2]))
            try phone.waitFor(GalleryViewerTests.viewer("v.open && v.id === '\(ids[2])' && v.showing === 'original' && v.originalMs !== null"), timeout: .seconds(30))
            GalleryViewerTests.keep(phone, "real-viewer-390")
        }
    }
}
