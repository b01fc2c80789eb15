import Foundation
import GalleryTestSupport
import Testing

/// Drags between two real nodes' pages (`gallery serve --http`, one space, two windows of one
/// headless Chromium), checked on both nodes (`list --json`) and in both DOMs: a 24 MB image
/// copied and moved with a placeholder and its progress ring, a multi-selection landing as one run,
/// and drops that must change nothing.
@Suite("Gallery pages on real nodes: drags across nodes", .serialized,
       .enabled(if: BrowserBinary.testsEnabled, "needs Chromium (see README set-up)"))
struct RealCrossNodeTests {
    /// Records, from now on, every placeholder tile with a progress ring that the grid shows:
    /// `window.__seen = [{index, id, progress}]` (so that a fast transfer is not missed).
    static let watchPlaceholders = """
        window.__seen = [];
        new MutationObserver(() => {
          [...document.querySelectorAll('#grid .tile')].forEach((tile, index) => {
            if (tile.classList.contains('placeholder') && tile.querySelector('.ring'))
              window.__seen.push({ index, id: tile.dataset.id, progress: tile.dataset.progress || null });
          });
        }).observe(document.getElementById('grid'), { subtree: true, childList: true, attributes: true });
        true
        """

    /// The page condition "tile `index` shows a thumbnail of the blob `hash`, decoded".
    static func showsImage(_ hash: String, at index: Int) -> String {
        "(() => { const tile = document.querySelectorAll('#grid .tile:not(.failed)')[\(index)]; const img = tile && tile.querySelector('img');"
            + " return !!img && !tile.classList.contains('placeholder') && img.getAttribute('src').startsWith('/thumbnails/\(hash)/')"
            + " && img.complete && img.naturalWidth > 0; })()"
    }

    @Test("A 24 MB image dragged from A's page to B's: placeholder with a ring at the drop index, then the image; Shift moves; a selection lands as one run")
    func crossNodeDrag() throws {
        var options = Browser.Options()
        options.windowSize = (900, 800)   // tall enough for the README picture to show both galleries whole
        try RealSpace.run("real-cross-node", options: options) { space in
            let alice = try space.node("alice")
            let files = try (0..<3).map { try space.file("alice-\($0).png", RealPictures.png(palette: $0)) }
            let big = try space.file("big.png", RealPictures.png(width: 300, height: 200, palette: 4, bytes: 24_000_000))
            try alice.gallery(["add"] + files + [big])
            let bob = try space.node("bob", peers: [alice])
            try bob.gallery(["add"] + (0..<3).map { try space.file("bob-\($0).png", RealPictures.png(palette: $0 + 5)) })
            try #require(alice.waitUntil { try $0.ids("bob").count == 3 }, "the nodes did not sync")
            try #require(bob.waitUntil { try $0.ids("alice").count == 4 }, "the nodes did not sync")
            let source = try alice.items("alice")
            let sourceIDs = source.map { $0["id"] as? String ?? "" }
            let bigHash = try #require(source[3]["hash"] as? String)
            let bobIDs = try bob.ids("bob")

            let pageA = try space.open(alice)
            let pageB = try space.open(bob)
            #expect(try pageA.tileTitles() == "alice-0.png,alice-1.png,alice-2.png,big.png")
            #expect(try pageB.tileTitles() == "bob-0.png,bob-1.png,bob-2.png")
            try pageB.evaluate(Self.watchPlaceholders)

            // Shift held: a move of the 24 MB image to index 1 of bob's gallery.
            let from = try pageA.center(of: BrowserPage.tile(sourceIDs[3]))
            let data = try pageA.startInterceptedDrag(from: from, toward: PagePoint(x: from.x + 40, y: from.y + 40))
            #expect(data.item("application/x-gallerysync-items+json")?.contains(bigHash) == true)
            let target = try pageB.point(in: BrowserPage.tile(bobIDs[1]), fx: 0.2)
            try pageB.dragOver(data, at: target, modifiers: .shift)
            #expect(try pageB.evaluate("document.getElementById('indicator').hidden") as? Bool == false, "the insertion indicator shows")
            try pageB.drop(data, at: target, modifiers: .shift)
            try pageA.finishDrag(data, at: from, droppedElsewhere: true)

            try pageB.waitFor(Self.showsImage(bigHash, at: 1), timeout: .seconds(60))
            let seen = try pageB.evaluate("JSON.stringify(window.__seen.map(s => [s.index, s.progress]))") as? String ?? ""
            #expect(try pageB.evaluate("window.__seen.length > 0 && window.__seen.every(s => s.index === 1) && window.__seen.some(s => s.progress !== null)") as? Bool == true,
                    "a placeholder with a ring stood at the drop index: \(seen.prefix(300))")
            let landed = try bob.items("bob")
            #expect(landed.map { $0["hash"] as? String ?? "" }[1] == bigHash)
            #expect(landed[1]["state"] as? String == "ready")
            #expect(landed.map { $0["title"] as? String ?? "" } == ["bob-0.png", "big.png", "bob-1.png", "bob-2.png"])
            #expect(try pageB.tileTitles() == "bob-0.png,big.png,bob-1.png,bob-2.png")
            // After the commit the source goes, on A's node and A's page.
            #expect(try alice.waitUntil { try $0.ids("alice") == Array(sourceIDs.prefix(3)) }, "the move deleted the source")
            try pageA.waitFor(RealNodePageTests.titlesAre("alice-0.png,alice-1.png,alice-2.png"))

            // A selection (click, ctrl-click) dragged to B's page: a copy landing as one run at index 0.
            try pageA.settle()
            try pageA.click(BrowserPage.tile(sourceIDs[0]))
            try pageA.click(BrowserPage.tile(sourceIDs[2]), modifiers: .control)
            #expect(try pageA.evaluate("document.querySelectorAll('#grid .tile.selected').length") as? Int == 2)
            try pageB.settle()
            let run = try pageA.startInterceptedDrag(from: pageA.center(of: BrowserPage.tile(sourceIDs[2])), toward: from)
            try pageB.drop(run, at: pageB.point(in: BrowserPage.tile(bobIDs[0]), fx: 0.2))
            try pageA.finishDrag(run, at: from, droppedElsewhere: true)
            let hashes = source.map { $0["hash"] as? String ?? "" }
            #expect(try bob.waitUntil { try $0.items("bob").prefix(2).map { $0["hash"] as? String ?? "" } == [hashes[0], hashes[2]] },
                    "the two items land as one run at the drop index")
            #expect(try bob.titles("bob") == ["alice-0.png", "alice-2.png", "bob-0.png", "big.png", "bob-1.png", "bob-2.png"])
            try pageB.waitFor(RealNodePageTests.titlesAre("alice-0.png,alice-2.png,bob-0.png,big.png,bob-1.png,bob-2.png"))
            try pageB.waitFor(Self.showsImage(hashes[2], at: 1))
            #expect(try alice.ids("alice") == Array(sourceIDs.prefix(3)), "a copy leaves the sources")
            try pageA.settle()
            try pageB.settle()
            // Both pages stay signed in to their own node (one browser, one host, two ports) and
            // their sidebars show the nodes' counts.
            for page in [pageA, pageB] {
                try page.waitFor("[...document.querySelectorAll('.gallery-count')].map(c => c.textContent).join() === '3,6'")
                #expect(try page.evaluate("__state.connected") as? Bool == true)
                #expect(try page.evaluate("fetch('/api/galleries').then(r => r.status)") as? Int == 200)
                try page.evaluate("document.getElementById('scroller').scrollTop = 0; new Promise((r) => requestAnimationFrame(r))")
            }
            try SideBySide.save(pageA, pageB, in: space.browser, width: options.windowSize.width, height: options.windowSize.height)
        }
    }

    @Test("Forbidden drops on real nodes: items of another space, a gallery into itself; nothing changes")
    func forbiddenDrops() throws {
        try RealSpace.run("real-forbidden") { space in
            let alice = try space.node("alice")
            try alice.gallery(["add"] + (0..<3).map { try space.file("a\($0).png", RealPictures.png(palette: $0)) })
            let mallory = try space.node("mallory", foreign: true)
            try mallory.gallery("add", try space.file("m.png", RealPictures.png(palette: 6)))
            let before = try alice.ids("alice")
            let pageA = try space.open(alice)
            let pageM = try space.open(mallory)
            let target = try pageA.center(of: BrowserPage.tile(before[1]))

            let from = try pageM.center(of: BrowserPage.tile(try mallory.ids("mallory")[0]))
            let foreign = try pageM.startInterceptedDrag(from: from, toward: PagePoint(x: from.x + 40, y: from.y + 40))
            try pageA.dragOver(foreign, at: target)
            #expect(try pageA.evaluate("document.getElementById('scroller').classList.contains('forbidden')") as? Bool == true)
            try pageA.drop(foreign, at: target)
            try pageM.finishDrag(foreign, at: from, droppedElsewhere: true)

            let row = ".gallery-row[data-gallery=alice]"
            let whole = try pageA.startInterceptedDrag(from: pageA.center(of: row), toward: target)
            try pageA.dragOver(whole, at: target)
            #expect(try pageA.evaluate("document.getElementById('scroller').classList.contains('forbidden')") as? Bool == true)
            try pageA.drop(whole, at: target)
            try pageA.finishDrag(whole, at: target, droppedElsewhere: false)

            // The node was asked nothing that changes: its log and both pages are as they were.
            try pageA.evaluate("new Promise(r => setTimeout(r, 200))")
            #expect(try pageA.evaluate("__state.requests.filter(r => r.method !== 'GET').length") as? Int == 0)
            #expect(try alice.ids("alice") == before)
            #expect(try alice.items("mallory").isEmpty, "nothing of the other space arrived")
            #expect(try mallory.ids("mallory").count == 1)
            #expect(try pageA.tileTitles() == "a0.png,a1.png,a2.png")
        }
    }
}
