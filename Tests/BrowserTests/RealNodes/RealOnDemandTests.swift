import Foundation
import GalleryTestSupport
import Testing

/// Pictures whose bytes only a peer holds, on a real node's page (`gallery serve --http`, headless
/// Chromium): the node fetches them when the page asks, with no drag; with the holder gone, the tile
/// says why instead of showing a broken image.
@Suite("Gallery pages on real nodes: pictures a peer holds", .serialized,
       .enabled(if: BrowserBinary.testsEnabled, "needs Chromium (see README set-up)"))
struct RealOnDemandTests {
    /// The page condition "tile `index` has no image and says `reason`".
    static func explains(_ reason: String, at index: Int) -> String {
        "(() => { const tile = document.querySelectorAll('#grid .tile')[\(index)]; const missing = tile && tile.querySelector('.missing');"
            + " return !!missing && !tile.querySelector('img') && missing.textContent.includes('\(reason)'); })()"
    }

    @Test("A picture added on bob shows on alice's page with no drag; with bob stopped, a picture only he held shows the reason on its tile")
    func picturesFromPeer() throws {
        try RealSpace.run("real-on-demand") { space in
            let alice = try space.node("alice")
            let bob = try space.node("bob", peers: [alice])
            let first = RealPictures.png(palette: 1)
            try bob.gallery("add", try space.file("b0.png", first))
            try #require(alice.waitUntil { try $0.ids("bob").count == 1 }, "the nodes did not sync")
            let page = try space.open(alice, newWindow: false)
            try page.click(".gallery-row[data-gallery=bob]")
            try page.waitFor(RealCrossNodeTests.showsImage(RealNodeLiveTests.sha256(first), at: 0), timeout: .seconds(20))

            // Away from bob's gallery, bob adds a second picture, then stops. Its pixel data is
            // damaged (the header, and so its size, is intact): no node can make its thumbnails,
            // so alice's page needs its original, which only bob held (a picture that decodes
            // would have its thumbnails replicated to alice, and show).
            try page.click(".gallery-row[data-gallery=alice]")
            var damaged = RealPictures.png(palette: 2)
            for index in 60..<(damaged.count - 20) { damaged[index] = 0xA5 }
            try bob.gallery("add", try space.file("b1.png", damaged))
            try #require(alice.waitUntil { try $0.ids("bob").count == 2 }, "the nodes did not sync")
            bob.stop()
            try page.click(".gallery-row[data-gallery=bob]")
            try page.waitFor(Self.explains("on bob, offline: no peer is connected", at: 1), timeout: .seconds(10))
            // The first picture's bytes stayed on alice: still shown.
            try page.waitFor(RealCrossNodeTests.showsImage(RealNodeLiveTests.sha256(first), at: 0), timeout: .seconds(10))
        }
    }
}
