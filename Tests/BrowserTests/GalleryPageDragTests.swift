import Foundation
import GalleryTestSupport
import Testing

/// The gallery page across nodes and from the desktop, with real intercepted drags in headless
/// Chromium against fake nodes (http-api.md): a drop on another node's window, Shift for a move,
/// files, forbidden drops, and 10,000 tiles.
@Suite("Gallery page drags", .serialized, .enabled(if: BrowserBinary.testsEnabled, "needs Chromium (see README set-up)"))
struct GalleryPageDragTests {
    @Test("A drag from node A's window to node B's: B gets the descriptor, shows a placeholder with progress, then the image; Shift moves")
    func crossNodeDrag() throws {
        var options = Browser.Options()
        options.windowSize = (820, 560)
        try PageScenario.run("page-cross-node", options: options) { scenario in
            let a = try scenario.node("alice", pictures: 5)
            let b = try scenario.node("bob", pictures: 3)
            scenario.mesh(a.node, b.node)
            try a.node.createGallery("trip")
            try b.node.createGallery("favourites")
            b.node.condition.withLock { b.node.holdTransfers = true }
            let sourceIDs = a.node.items("alice").map(\.id)
            let targetIDs = b.node.items("bob").map(\.id)
            let pageA = try scenario.open(a, newWindow: true)
            let pageB = try scenario.open(b, newWindow: true)

            try pageA.drag(BrowserPage.tile(sourceIDs[1]), to: BrowserPage.tile(targetIDs[1]), in: pageB)
            try #require(b.node.waitUntil { $0.requests(to: "/api/drops").count == 1 })
            let drop = b.node.requests(to: "/api/drops")[0]
            #expect(drop["operation"] as? String == "copy")
            #expect(drop["to"] as? String == "bob")
            #expect(drop["index"] as? Int == 1)
            let descriptor = try #require(drop["descriptor"] as? [String: Any])
            #expect(descriptor["space"] as? String == a.node.space)
            #expect(descriptor["node"] as? String == "alice")
            let item = try #require((descriptor["items"] as? [[String: Any]])?.first)
            #expect(item["id"] as? String == sourceIDs[1])
            #expect(item["hash"] as? String == a.node.items("alice")[1].hash)
            #expect(item["bytes"] as? Int == a.node.items("alice")[1].bytes)
            #expect(item["title"] as? String == "alice-1")
            #expect(item["aspectRatio"] as? Double == 0.75)

            try pageB.waitFor("document.querySelectorAll('#grid .tile.placeholder').length === 1")
            try pageB.waitFor("document.querySelector('#grid .tile.placeholder').dataset.progress === '50'")
            #expect(try pageB.evaluate("[...document.querySelectorAll('#grid .tile')].indexOf(document.querySelector('.tile.placeholder'))") as? Int == 1)
            #expect(try pageB.evaluateString("document.querySelector('.tile.placeholder .percent').textContent") == "50%")
            #expect(try pageB.evaluate("document.querySelectorAll('.tile.placeholder button.cancel').length") as? Int == 1)
            try pageB.evaluate("new Promise(r => setTimeout(r, 300))")  // Let the insertion animations end.
            try SideBySide.save(pageA, pageB, in: scenario.browser, width: options.windowSize.width, height: options.windowSize.height)

            b.node.releaseTransfers()
            try pageB.waitFor("document.querySelectorAll('#grid .tile.placeholder').length === 0")
            try pageB.waitFor("document.querySelector('#grid').textContent === 'bob-0alice-1bob-1bob-2'")
            let hash = try #require(a.node.items("alice")[1].hash)
            #expect(try pageB.evaluateString("document.querySelectorAll('#grid .tile')[1].querySelector('img').getAttribute('src')") == "/thumbnails/\(hash)/320")
            #expect(try pageA.tileTitles() == "alice-0,alice-1,alice-2,alice-3,alice-4", "a copy leaves the source")

            // Shift: a move. The source disappears from A's page once B committed.
            try pageA.drag(BrowserPage.tile(sourceIDs[3]), to: BrowserPage.tile(targetIDs[0]), in: pageB, modifiers: .shift)
            try #require(b.node.waitUntil { $0.requests(to: "/api/drops").count == 2 })
            #expect(b.node.requests(to: "/api/drops")[1]["operation"] as? String == "move")
            try pageB.waitFor("document.querySelector('#grid').textContent === 'alice-3bob-0alice-1bob-1bob-2'")
            try pageA.waitFor("document.querySelector('#grid').textContent === 'alice-0alice-1alice-2alice-4'")

            // A transfer cancelled with the placeholder's button: the tile says why and goes; the source stays.
            b.node.condition.withLock { b.node.holdTransfers = true }
            try pageA.settle()  // Tiles gliding after the move have landed.
            try pageA.drag(BrowserPage.tile(sourceIDs[4]), to: BrowserPage.tile(targetIDs[2]), in: pageB)
            try pageB.waitFor("document.querySelector('#grid .tile.placeholder .cancel') !== null")
            try pageB.settle()
            try pageB.click("#grid .tile.placeholder .cancel")
            try pageB.waitFor("__state.toasts.includes('alice-4: cancelled')")
            try pageB.waitFor("document.querySelector('#grid .tile.failed .reason')?.textContent === 'cancelled'")
            #expect(try pageB.tileTitles() == "alice-3,bob-0,alice-1,bob-1,bob-2")
            #expect(b.node.requests(to: "/api/transfers/cancel").count == 1)
            b.node.releaseTransfers()
            #expect(try pageA.tileTitles() == "alice-0,alice-1,alice-2,alice-4")
        }
    }

    @Test("Files from the desktop: a PNG is uploaded at the drop index with the right hash, a .txt is refused by name")
    func fileDrop() throws {
        try PageScenario.run("page-file-drop") { scenario in
            let server = try scenario.node("alice", pictures: 3)
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("page-drop-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let bytes = TestPictures.png(width: 300, height: 200, palette: 5)
            let png = folder.appendingPathComponent("sunset <b>.png")
            try Data(bytes).write(to: png)
            let text = folder.appendingPathComponent("notes.txt")
            try Data("not a picture".utf8).write(to: text)
            let page = try scenario.open(server)
            let ids = server.node.items("alice").map(\.id)

            try page.drop(.files([png.path, text.path]), at: page.point(in: BrowserPage.tile(ids[1]), fx: 0.1))
            try #require(server.node.waitUntil { $0.items("alice").count == 4 && $0.items("alice")[1].state == "ready" })
            let added = server.node.items("alice")[1]
            #expect(added.title == "sunset <b>.png")
            #expect(added.hash == FakeNode.hash(bytes))
            #expect(server.node.condition.withLock { server.node.blobs[FakeNode.hash(bytes)]?.bytes } == bytes)
            #expect(server.node.requests(to: "/api/uploads").first?["index"] as? Int == 1)
            try page.waitFor("document.querySelector('#grid').textContent === 'alice-0sunset <b>.pngalice-1alice-2'")
            try page.waitFor("__state.toasts.some(t => t.includes('notes.txt') && t.includes('not a PNG, JPEG or GIF'))")
            #expect(try page.evaluate("document.querySelectorAll('#toasts b, #grid b').length") as? Int == 0)

            // An image dragged from another web page arrives as text/uri-list: added by URL reference.
            let link = DragData(raw: ["items": [["mimeType": "text/uri-list", "data": "https://example.org/rome.jpg"]],
                                      "dragOperationsMask": 1])
            try page.drop(link, at: page.point(in: BrowserPage.tile(ids[0]), fx: 0.1))
            try #require(server.node.waitUntil { $0.items("alice").first?.url == "https://example.org/rome.jpg" })
            #expect(server.node.requests(to: "/api/items/add-url").first?["index"] as? Int == 0)
            try page.waitFor("document.querySelector('#grid .tile .caption').textContent === 'rome.jpg'")
        }
    }

    @Test("Forbidden drops: items of another space, a gallery into itself, foreign items on the trash; nothing changes")
    func forbiddenDrops() throws {
        try PageScenario.run("page-forbidden") { scenario in
            let a = try scenario.node("alice", pictures: 3)
            let stranger = try scenario.node("mallory", pictures: 2, space: "0123456789abcdef0123456789abcdef")
            let pageA = try scenario.open(a, newWindow: true)
            let pageM = try scenario.open(stranger, newWindow: true)
            let strangerID = stranger.node.items("mallory")[0].id
            let target = try pageA.center(of: BrowserPage.tile(a.node.items("alice")[1].id))

            let from = try pageM.center(of: BrowserPage.tile(strangerID))
            let data = try pageM.startInterceptedDrag(from: from, toward: PagePoint(x: from.x + 40, y: from.y + 40))
            try pageA.dragOver(data, at: target)
            #expect(try pageA.evaluate("document.getElementById('scroller').classList.contains('forbidden')") as? Bool == true)
            #expect(try pageA.evaluate("document.getElementById('indicator').hidden") as? Bool == true)
            try pageA.drop(data, at: target)
            try pageA.dragOver(data, at: pageA.center(of: "#trash"))
            #expect(try pageA.evaluate("document.getElementById('trash').classList.contains('drop-target')") as? Bool == false)
            try pageM.finishDrag(data, at: from, droppedElsewhere: true)

            // The gallery shown, dragged by its name onto its own grid and its own name.
            let row = ".gallery-row[data-gallery=alice]"
            let whole = try pageA.startInterceptedDrag(from: pageA.center(of: row), toward: target)
            #expect(whole.items.contains { $0.mimeType.hasPrefix("application/x-gallerysync-gallery.") })
            try pageA.dragOver(whole, at: target)
            #expect(try pageA.evaluate("document.getElementById('scroller').classList.contains('forbidden')") as? Bool == true)
            try pageA.drop(whole, at: target)
            try pageA.drop(whole, at: pageA.center(of: row))
            try pageA.finishDrag(whole, at: target, droppedElsewhere: false)

            try pageA.evaluate("new Promise(r => setTimeout(r, 100))")  // Let any stray request arrive.
            #expect(a.node.condition.withLock { a.node.changeRequests.count } == 0)
            #expect(a.node.titles("alice") == ["alice-0", "alice-1", "alice-2"])
            #expect(try pageA.tileTitles() == "alice-0,alice-1,alice-2")
        }
    }

    @Test("10,000 tiles: the virtual grid is painted, scrolls, and takes a live move (timings printed)")
    func tenThousandTiles() throws {
        try PageScenario.run("page-10k") { scenario in
            let server = try scenario.node("alice")
            let picture = TestPictures.png(width: 90, height: 60, palette: 2)
            server.node.seed("alice", (0..<10_000).map { (title: "photo \($0)", bytes: picture, aspectRatio: $0 % 4 == 1 ? 0.75 : 1.5) })
            let started = ContinuousClock.now
            let page = try scenario.open(server)
            try page.waitFor("__state.itemCount === 10000 && document.querySelectorAll('#grid .tile').length > 0")
            try page.evaluate("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
            let painted = ContinuousClock.now - started
            let render = try page.evaluate("__state.renderMs") as? Double ?? -1
            let fetch = try page.evaluate("__state.fetchMs") as? Double ?? -1
            // Frames with no scrolling (the machine's baseline), of a smooth scroll (150 px each), then of
            // jumps of 500 tiles (each frame all new tiles).
            let idle = try page.evaluate("""
                (async () => { const t0 = performance.now();
                  for (let i = 1; i <= 30; i++) await new Promise(r => requestAnimationFrame(r));
                  return (performance.now() - t0) / 30; })()
                """) as? Double ?? -1
            let smooth = try page.evaluate("""
                (async () => { const s = document.getElementById('scroller'); const t0 = performance.now();
                  for (let i = 1; i <= 30; i++) { s.scrollTop += 150; await new Promise(r => requestAnimationFrame(r)); }
                  return (performance.now() - t0) / 30; })()
                """) as? Double ?? -1
            let scroll = try page.evaluate("""
                (async () => { const s = document.getElementById('scroller'); const t0 = performance.now();
                  for (let i = 1; i <= 20; i++) { s.scrollTop = i * s.scrollHeight / 20;
                    await new Promise(r => requestAnimationFrame(r)); }
                  return (performance.now() - t0) / 20; })()
                """) as? Double ?? -1
            let memory = try page.evaluate("performance.memory ? performance.memory.usedJSHeapSize / 1048576 : -1") as? Double ?? -1
            print("page test page-10k: open to painted \(painted), items fetched in \(Int(fetch)) ms, tiles built in \(Int(render)) ms, "
                  + "idle \(String(format: "%.1f", idle)) ms per frame, smooth scroll \(String(format: "%.1f", smooth)) ms per frame, jump scroll \(String(format: "%.1f", scroll)) ms per frame, "
                  + "JS heap \(Int(memory)) MiB")
            #expect(painted < .seconds(10))
            #expect(smooth < 250 && scroll < 500)
            let rendered = try page.evaluate("document.querySelectorAll('#grid .tile').length") as? Int ?? 0
            #expect(rendered > 0 && rendered < 600, "the grid is virtual: \(rendered) tiles in the DOM")
            try page.evaluate("document.getElementById('scroller').scrollTop = 0")
            // A live move still lands in a 10,000-tile grid.
            let ids = server.node.items("alice").map(\.id)
            try server.node.move([ids[9_999]], to: "alice", at: 0)
            try page.waitFor("document.querySelector('#grid .tile').dataset.id === \(BrowserPage.jsString(ids[9_999]))")
            #expect(try page.evaluateString("document.querySelector('#grid .tile .caption').textContent") == "photo 9999")
        }
    }
}
