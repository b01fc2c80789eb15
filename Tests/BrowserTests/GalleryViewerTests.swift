import Foundation
import GalleryTestSupport
import Testing

/// The page's thumbnails and its full-size viewer (`viewer.js`) in headless Chromium against the
/// fake node (whose thumbnails are the small pictures themselves), with real input events: mouse
/// double-clicks and drags, keys, and a phone's touches.
@Suite("Gallery page: thumbnails and the viewer", .serialized, .enabled(if: BrowserBinary.testsEnabled, "needs Chromium (see README set-up)"))
struct GalleryViewerTests {
    /// A 1600x1000 picture padded to `bytes` (so that its original arrives in many pieces).
    static let large = RealPictures.png(width: 1600, height: 1000, palette: 3, bytes: 12 << 20)

    /// The page's viewer state (`window.__state.viewer`) as a condition.
    static func viewer(_ condition: String) -> String { "(v => \(condition))(window.__state.viewer)" }

    /// Saves a screenshot of `page` as NAME.png in `GALLERY_BROWSER_SCREENSHOTS`, when it is set.
    static func keep(_ page: BrowserPage, _ name: String) {
        guard let folder = ProcessInfo.processInfo.environment["GALLERY_BROWSER_SCREENSHOTS"] else { return }
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try? page.screenshot(to: URL(fileURLWithPath: folder).appendingPathComponent("\(name).png"))
    }

    @Test("Tiles load a thumbnail sized for the zoom, never the original; a missing one says why on the tile")
    func tilesLoadThumbnails() throws {
        var options = Browser.Options()
        options.windowSize = (1440, 900)
        try PageScenario.run("viewer-thumbnails", options: options) { scenario in
            let server = try scenario.node("alice", pictures: 4)
            let ids = server.node.items("alice").map(\.id)
            let hashes = server.node.items("alice").compactMap(\.hash)
            // A fifth item whose bytes the node does not hold: its thumbnail is refused.
            let lost = server.node.seed("alice", [(title: "lost", bytes: RealPictures.png(palette: 9), aspectRatio: 1.5)])[0]
            let lostHash = try #require(server.node.item(lost)?.hash)
            server.node.condition.withLock { _ = server.node.blobs.removeValue(forKey: lostHash) }
            let page = try scenario.open(server)
            try page.waitFor("[...document.querySelectorAll('#grid img')].filter(i => i.complete && i.naturalWidth > 0).length === 4")
            // The refused thumbnail: the node's reason on the tile, no broken image (waited for before
            // the sources are read: until the node's refusal arrives, the lost tile still holds its img).
            try page.waitFor("(t => !!t && !t.querySelector('img') && t.querySelector('.missing').textContent === 'no blob \(lostHash)')"
                             + "(document.querySelector('\(BrowserPage.tile(lost))'))")
            // The reason wraps inside its tile, however long its words (a 64-digit hash here).
            let reasonFits = try page.evaluate("(m => m.scrollWidth <= m.clientWidth && m.getBoundingClientRect().right <= m.parentElement.getBoundingClientRect().right + 0.5)"
                                               + "(document.querySelector('\(BrowserPage.tile(lost)) .missing'))") as? Bool
            #expect(reasonFits == true, "the refusal's text overflows its tile")
            let sources = try page.evaluate("[...document.querySelectorAll('#grid img')].map(i => i.getAttribute('src'))") as? [String]
            #expect(sources == hashes.map { "/thumbnails/\($0)/320" }, "160 px tiles at 1x take the 320 px thumbnail")
            #expect(try page.evaluate("[...document.querySelectorAll('#grid img')].every(i => i.loading === 'lazy' && i.decoding === 'async')") as? Bool == true)
            // Zoomed to 480 px, a 1.5 tile is 720 px wide: the 1280 px thumbnail replaces the 320 px one once loaded.
            try page.evaluate("(() => { const z = document.getElementById('zoom'); z.value = 480; z.dispatchEvent(new Event('input')); })()")
            try page.waitFor("(i => !!i && i.getAttribute('src') === '/thumbnails/\(hashes[0])/1280' && i.complete && i.naturalWidth > 0)"
                             + "(document.querySelector('\(BrowserPage.tile(ids[0])) img'))")
            // Zoomed back out, it keeps the larger one (cached) rather than fetching the smaller.
            try page.evaluate("(() => { const z = document.getElementById('zoom'); z.value = 160; z.dispatchEvent(new Event('input')); })()")
            #expect(try page.evaluateString("document.querySelector('\(BrowserPage.tile(ids[0])) img').getAttribute('src')") == "/thumbnails/\(hashes[0])/1280")
            // Placeholders and tiles keep the aspect ratio: a 1.5 item is twice as wide as a 0.75 item.
            let ratios = try page.evaluate("[0, 1].map(i => document.querySelectorAll('#grid .tile .frame')[i].getBoundingClientRect())"
                                           + ".map(r => r.width / r.height)") as? [Double] ?? []
            #expect(ratios.count == 2 && abs(ratios[0] - 1.5) < 0.02 && abs(ratios[1] - 0.75) < 0.02, "\(ratios)")
            // No request for an original was made by the grid.
            let originals = try page.evaluate("performance.getEntriesByType('resource').filter(e => new URL(e.name).pathname.startsWith('/blobs/')).length") as? Int
            #expect(originals == 0)
        }
    }

    @Test("The viewer: double-click opens it as a modal dialog, thumbnail then original with progress, arrows step, 1 and double-click zoom to 100% with panning, Tab stays inside, Escape returns the focus to the tile, Enter opens")
    func viewerWithMouseAndKeyboard() throws {
        var options = Browser.Options()
        options.windowSize = (1440, 900)
        try PageScenario.run("viewer-desktop", options: options) { scenario in
            let server = try scenario.node("alice")
            let ids = server.node.seed("alice", [
                (title: "harbour.png", bytes: Self.large, aspectRatio: 1.6),
                (title: "small.png", bytes: RealPictures.png(width: 150, height: 100, palette: 1), aspectRatio: 1.5),
                (title: "portrait.png", bytes: RealPictures.png(width: 90, height: 120, palette: 2), aspectRatio: 0.75),
            ])
            let page = try scenario.open(server)
            try page.waitFor("[...document.querySelectorAll('#grid img')].filter(i => i.complete && i.naturalWidth > 0).length === 3")
            try page.evaluate("window.__progress = []; new MutationObserver(() => { const v = window.__state.viewer.progress;"
                              + " if (v) window.__progress.push(v.done); }).observe(document.querySelector('.viewer-status'),"
                              + " { childList: true, characterData: true, subtree: true }); true")

            try page.doubleClick(BrowserPage.tile(ids[0]))
            try page.waitFor(Self.viewer("v.open && v.id === '\(ids[0])' && v.showing !== 'none'"))
            #expect(try page.evaluate("(d => d.getAttribute('role') === 'dialog' && d.getAttribute('aria-modal') === 'true'"
                                      + " && document.getElementById(d.getAttribute('aria-labelledby')).textContent === 'harbour.png'"
                                      + " && d.contains(document.activeElement) && document.getElementById('app').inert)"
                                      + "(document.getElementById('viewer'))") as? Bool == true)
            try page.waitFor(Self.viewer("v.showing === 'original' && v.originalMs !== null && v.progress === null"), timeout: .seconds(15))
            // The original came in pieces: the progress bar showed a part of the whole (it moves at
            // most every 100 ms, and the first piece shows at once).
            let steps = try page.evaluate("window.__progress.filter(d => d > 0 && d < \(Self.large.count)).length") as? Int ?? 0
            #expect(steps >= 1, "progress updates while the original arrived: \(steps)")
            // Painted: the thumbnail that stayed under the original while it decoded is gone.
            #expect(try page.evaluate("document.querySelectorAll('.viewer-stage img').length") as? Int == 1)
            #expect(try page.evaluate("(i => i.naturalWidth)(document.querySelector('.viewer-image'))") as? Int == 1600)
            // Fitted: the 1600x1000 picture fits the 1440 px wide stage.
            let fitted = try #require(try page.evaluate("document.querySelector('.viewer-image').getBoundingClientRect().width") as? Double)
            #expect(fitted < 1440 && fitted > 1000, "\(fitted)")
            Self.keep(page, "viewer-1440")

            // `1`: actual size, centred; a mouse drag pans it by as much as the mouse moved.
            try page.press(.character("1"))
            try page.waitFor(Self.viewer("v.zoom"))
            #expect(try page.evaluate("Math.round(document.querySelector('.viewer-image').getBoundingClientRect().width)") as? Int == 1600)
            let before = try #require(try page.evaluate("document.querySelector('.viewer-image').getBoundingClientRect().left") as? Double)
            let centre = try page.center(of: ".viewer-stage")
            try page.mouse("mouseMoved", at: centre)
            try page.mouse("mousePressed", at: centre, button: "left", buttons: 1, clickCount: 1)
            try page.mouse("mouseMoved", at: PagePoint(x: centre.x + 60, y: centre.y), button: "left", buttons: 1)
            try page.mouse("mouseReleased", at: PagePoint(x: centre.x + 60, y: centre.y), button: "left", buttons: 0, clickCount: 1)
            let after = try #require(try page.evaluate("document.querySelector('.viewer-image').getBoundingClientRect().left") as? Double)
            #expect(abs(after - before - 60) < 1, "panned from \(before) to \(after)")
            // A double-click on the picture goes back to fitted, the 100% button to actual size.
            try page.doubleClick(at: centre)
            try page.waitFor(Self.viewer("!v.zoom"))
            try page.click(".viewer-zoom")
            try page.waitFor(Self.viewer("v.zoom") + " && document.querySelector('.viewer-zoom').getAttribute('aria-pressed') === 'true'")
            try page.press(.character("z"))
            try page.waitFor(Self.viewer("!v.zoom"))

            // Arrows step through the gallery; the position says where.
            try page.press(.arrowRight)
            try page.waitFor(Self.viewer("v.id === '\(ids[1])' && v.showing === 'original' && v.originalMs !== null"))
            #expect(try page.evaluateString("document.querySelector('.viewer-position').textContent") == "2 of 3")
            // A 150x100 original is not enlarged past its own pixels.
            #expect(try page.evaluate("Math.round(document.querySelector('.viewer-image').getBoundingClientRect().width)") as? Int == 150)
            try page.press(.arrowRight)
            try page.waitFor(Self.viewer("v.id === '\(ids[2])'"))
            try page.press(.arrowRight)   // the last: stays
            try page.press(.arrowLeft)
            try page.waitFor(Self.viewer("v.id === '\(ids[1])'"))

            // Tab cycles through the dialog's buttons only.
            var focused: [String] = []
            for _ in 0..<6 {
                try page.press(.tab)
                focused.append(try page.evaluateString("document.getElementById('viewer').contains(document.activeElement) ? document.activeElement.className : 'outside'") ?? "")
            }
            #expect(!focused.contains("outside") && Set(focused).count == 5, "\(focused)")

            // Escape: closed, the focus on the tile of the picture last shown, which is selected.
            try page.press(.escape)
            try page.waitFor(Self.viewer("!v.open") + " && document.getElementById('viewer').hidden && !document.getElementById('app').inert")
            #expect(try page.evaluateString("document.activeElement.dataset.id") == ids[1])
            #expect(try page.evaluateString("document.activeElement.getAttribute('aria-selected')") == "true")
            // Enter on the focused tile opens it again.
            try page.press(.arrowRight)
            try page.press(.enter)
            try page.waitFor(Self.viewer("v.open && v.id === '\(ids[2])'"))
            try page.press(.escape)
            try page.waitFor(Self.viewer("!v.open"))
            #expect(try page.evaluateString("document.activeElement.dataset.id") == ids[2])
        }
    }

    @Test("On a phone (390 px, touch): a tap opens the viewer, swipes step, a refused original keeps the thumbnail and says why, a tap on close closes")
    func viewerOnPhone() throws {
        try PageScenario.run("viewer-phone") { scenario in
            let server = try scenario.node("alice")
            let ids = server.node.seed("alice", [
                (title: "one.png", bytes: RealPictures.png(width: 600, height: 400, palette: 4), aspectRatio: 1.5),
                (title: "two.png", bytes: RealPictures.png(width: 300, height: 400, palette: 5), aspectRatio: 0.75),
                (title: "three.png", bytes: RealPictures.png(width: 400, height: 400, palette: 6), aspectRatio: 1),
            ])
            let hashes = server.node.items("alice").compactMap(\.hash)
            let page = try scenario.open(server)
            try page.emulateViewport(width: 390, height: 844, scale: 2, mobile: true)
            try page.waitFor("[...document.querySelectorAll('#grid img')].filter(i => i.complete && i.naturalWidth > 0).length === 3")
            try page.tap(BrowserPage.tile(ids[0]))
            try page.waitFor(Self.viewer("v.open && v.id === '\(ids[0])' && v.showing === 'original' && v.originalMs !== null"), timeout: .seconds(10))
            // At 2 device pixels per CSS pixel, a fitted 600x400 original is drawn at most 300 CSS px wide.
            #expect(try page.evaluate("Math.round(document.querySelector('.viewer-image').getBoundingClientRect().width)") as? Int == 300)
            Self.keep(page, "viewer-390")
            // The title is edited in the viewer (the phone's grid shows no captions): tap the pencil.
            try page.tap(".viewer-edit")
            try page.waitFor("document.activeElement && document.activeElement.classList.contains('in-place')")
            try page.evaluate("document.activeElement.select(); true")
            try page.send("Input.insertText", ["text": "Harbour at dawn"])
            try page.press(.enter)
            try page.waitFor("document.getElementById('viewer-title').textContent === 'Harbour at dawn'")
            #expect(server.node.items("alice").first { $0.id == ids[0] }?.title == "Harbour at dawn")
            #expect(try page.evaluate(Self.viewer("v.open")) as? Bool == true, "Enter in the title field does not close the viewer")
            let stage = try page.center(of: ".viewer-stage")
            try page.touch([stage, PagePoint(x: stage.x - 60, y: stage.y), PagePoint(x: stage.x - 150, y: stage.y + 10)])
            try page.waitFor(Self.viewer("v.id === '\(ids[1])'"))
            try page.touch([stage, PagePoint(x: stage.x + 150, y: stage.y)])
            try page.waitFor(Self.viewer("v.id === '\(ids[0])'"))

            // The node loses the third picture's bytes after its thumbnail was fetched ahead (the
            // neighbour of the second): the viewer shows the cached thumbnail and says why the
            // original is missing.
            try page.touch([stage, PagePoint(x: stage.x - 150, y: stage.y)])
            try page.waitFor(Self.viewer("v.id === '\(ids[1])'"))
            try page.waitFor("performance.getEntriesByType('resource').some(e => e.name.endsWith('/thumbnails/\(hashes[2])/1280'))")
            server.node.condition.withLock { _ = server.node.blobs.removeValue(forKey: hashes[2]) }
            try page.touch([stage, PagePoint(x: stage.x - 150, y: stage.y)])
            try page.waitFor(Self.viewer("v.id === '\(ids[2])' && v.reason === 'no blob \(hashes[2])' && v.showing === 'thumbnail'"))
            #expect(try page.evaluateString("document.querySelector('.viewer-status').textContent") == "Original unavailable: no blob \(hashes[2])")
            Self.keep(page, "viewer-390-refused")
            try page.tap(".viewer-close")
            try page.waitFor(Self.viewer("!v.open"))
            #expect(try page.evaluateString("document.activeElement.dataset.id") == ids[2])
        }
    }
}
