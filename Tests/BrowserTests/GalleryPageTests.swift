import Foundation
import GalleryTestSupport
import Testing

/// The gallery page (`PageAssets`) in headless Chromium against an in-memory fake node that implements
/// http-api.md: what it shows, reordering by real intercepted drags, the keyboard, the trash, live
/// events, and reconnecting after a restart. Skipped with a loud message when Chromium is missing,
/// except under CI=true, where they fail.
@Suite("Gallery page", .serialized, .enabled(if: BrowserBinary.testsEnabled, "needs Chromium (see README set-up)"))
struct GalleryPageTests {
    @Test("The page shows the galleries and the items in order, thumbnails by hash, and a hostile title as text")
    func showsGalleriesAndItems() throws {
        try PageScenario.run("page-shows") { scenario in
            let server = try scenario.node("alice", pictures: 4)
            let node = server.node
            try node.createGallery("trip")
            let ids = node.items("alice").map(\.id)
            try node.update(ids[3], field: "title", value: "<img src=x onerror=alert(1)>")
            let page = try scenario.open(server)

            #expect(try page.tileTitles() == "alice-0,alice-1,alice-2,<img src=x onerror=alert(1)>")
            #expect(try page.evaluate("[...document.querySelectorAll('.gallery-name')].map(e => e.textContent)") as? [String]
                    == ["alice", "trip"])
            #expect(try page.evaluateString("document.querySelector('.gallery-row[aria-selected=true]').dataset.gallery") == "alice")
            let hash = try #require(node.items("alice")[0].hash)
            #expect(try page.evaluateString("document.querySelector('\(BrowserPage.tile(ids[0]))').querySelector('img').getAttribute('src')")
                    == "/thumbnails/\(hash)/320")
            #expect(try page.evaluateString("document.querySelector('\(BrowserPage.tile(ids[0]))').getAttribute('role')") == "option")
            // The hostile title is text: no element came out of it, and nothing ran.
            #expect(try page.evaluate("document.querySelectorAll('#grid img').length") as? Int == 4)
            #expect(try page.evaluate("document.querySelectorAll('#grid img[src=x]').length") as? Int == 0)
            // Aspect ratios kept: a 1.5 tile is twice as wide as a 0.75 tile of the same height.
            let widths = try page.evaluate("[0, 1].map(i => document.querySelectorAll('#grid .tile .frame')[i].getBoundingClientRect())"
                                           + ".map(r => r.width / r.height)") as? [Double] ?? []
            #expect(widths.count == 2 && abs(widths[0] - 1.5) < 0.02 && abs(widths[1] - 0.75) < 0.02, "\(widths)")
            // Zoom: the slider changes the tile height.
            try page.evaluate("(() => { const z = document.getElementById('zoom'); z.value = 300; z.dispatchEvent(new Event('input')); })()")
            #expect(try page.evaluate("Math.round(document.querySelector('#grid .tile .frame').getBoundingClientRect().height)") as? Int == 300)
            // Sending the token once left a cookie the script cannot read, and the token left the address bar.
            #expect(try page.evaluateString("document.cookie") == "")
            #expect(try page.evaluateString("location.search") == "")
        }
    }

    @Test("Reordering by drag sends one move with the index counted without the item, and the DOM follows the event")
    func reorderByDrag() throws {
        try PageScenario.run("page-reorder") { scenario in
            let server = try scenario.node("alice", pictures: 5)
            let ids = server.node.items("alice").map(\.id)
            let page = try scenario.open(server)
            let data = try page.dragAndDrop(from: BrowserPage.tile(ids[0]), to: page.point(in: BrowserPage.tile(ids[3]), fx: 0.2))
            #expect(data.item("application/x-gallerysync-items+json") != nil)
            #expect(data.item("application/x-gallerysync-space.5ace5ace5ace5ace5ace5ace5ace5ace") != nil)
            #expect(data.item("text/plain") == "alice-0")
            #expect(data.item("text/uri-list")?.hasPrefix("\(server.origin)/blobs/") == true)
            #expect(data.operations == 17)
            try page.waitFor("__state.lastEventId >= 2")
            let move = try #require(server.node.requests(to: "/api/items/move").first)
            #expect(move["items"] as? [String] == [ids[0]])
            #expect(move["to"] as? String == "alice")
            #expect(move["index"] as? Int == 2)
            #expect(server.node.titles("alice") == ["alice-1", "alice-2", "alice-0", "alice-3", "alice-4"])
            try page.waitFor("document.querySelectorAll('.tile.dragging').length === 0")
            #expect(try page.tileTitles() == "alice-1,alice-2,alice-0,alice-3,alice-4")
        }
    }

    @Test("Three tiles picked with click and ctrl-click drag as one run and land as one contiguous run")
    func multiItemDrag() throws {
        try PageScenario.run("page-multi") { scenario in
            let server = try scenario.node("alice", pictures: 6)
            let ids = server.node.items("alice").map(\.id)
            let page = try scenario.open(server)
            try page.click(BrowserPage.tile(ids[0]))
            try page.click(BrowserPage.tile(ids[2]), modifiers: .control)
            try page.click(BrowserPage.tile(ids[4]), modifiers: .control)
            #expect(try page.evaluate("document.querySelectorAll('.tile[aria-selected=true]').length") as? Int == 3)
            let data = try page.dragAndDrop(from: BrowserPage.tile(ids[2]), to: page.point(in: BrowserPage.tile(ids[5]), fx: 0.8))
            #expect(data.item("text/plain") == "alice-0\nalice-2\nalice-4")
            try #require(server.node.waitUntil { $0.titles("alice") == ["alice-1", "alice-3", "alice-5", "alice-0", "alice-2", "alice-4"] })
            let move = try #require(server.node.requests(to: "/api/items/move").first)
            #expect(move["items"] as? [String] == [ids[0], ids[2], ids[4]])
            #expect(move["index"] as? Int == 3)
            try page.waitFor("document.querySelector('#grid').textContent === 'alice-1alice-3alice-5alice-0alice-2alice-4'")
            // Shift-click selects a range (once the tiles gliding to their new places have landed).
            try page.settle()
            try page.click(BrowserPage.tile(ids[1]))
            try page.click(BrowserPage.tile(ids[5]), modifiers: .shift)
            #expect(try page.evaluate("document.querySelectorAll('.tile[aria-selected=true]').length") as? Int == 3)
        }
    }

    @Test("Tiles dropped on the trash are deleted; the keyboard selects, reorders with alt+arrows and deletes")
    func trashAndKeyboard() throws {
        try PageScenario.run("page-trash-keys") { scenario in
            let server = try scenario.node("alice", pictures: 5)
            let ids = server.node.items("alice").map(\.id)
            let page = try scenario.open(server)
            try page.dragAndDrop(from: BrowserPage.tile(ids[1]), to: page.center(of: "#trash"))
            try #require(server.node.waitUntil { $0.titles("alice") == ["alice-0", "alice-2", "alice-3", "alice-4"] })
            try page.waitFor("document.querySelector('#grid').textContent === 'alice-0alice-2alice-3alice-4'")
            #expect(server.node.requests(to: "/api/items/delete").first?["items"] as? [String] == [ids[1]])

            try page.settle()
            try page.click(BrowserPage.tile(ids[0]))
            try page.press(.arrowRight)
            #expect(try page.evaluateString("document.activeElement.dataset.id") == ids[2])
            try page.press(.arrowRight, modifiers: .alt)
            try #require(server.node.waitUntil { $0.titles("alice") == ["alice-0", "alice-3", "alice-2", "alice-4"] })
            try page.waitFor("document.querySelector('#grid').textContent === 'alice-0alice-3alice-2alice-4'")
            try page.press(.delete)
            try #require(server.node.waitUntil { $0.titles("alice") == ["alice-0", "alice-3", "alice-4"] })
            try page.waitFor("document.querySelector('#grid').textContent === 'alice-0alice-3alice-4'")
        }
    }

    @Test("A gallery made from the sidebar takes tiles dropped on its name; clicking it shows them")
    func sidebarCreateAndDropOnName() throws {
        try PageScenario.run("page-sidebar") { scenario in
            let server = try scenario.node("alice", pictures: 4)
            let ids = server.node.items("alice").map(\.id)
            let page = try scenario.open(server)
            try page.click("#new-gallery-name")
            for character in "trip" { try page.press(.character(character)) }
            try page.click("#new-gallery button")
            try page.waitFor("document.querySelector('.gallery-row[data-gallery=trip]') !== null")
            #expect(server.node.requests(to: "/api/galleries").first?["name"] as? String == "trip")
            try page.waitFor("document.querySelector('.gallery-row[aria-selected=true]').dataset.gallery === 'trip'")
            try page.click(".gallery-row[data-gallery=alice]")
            try page.waitFor("document.querySelector('#grid').textContent === 'alice-0alice-1alice-2alice-3'")

            try page.click(BrowserPage.tile(ids[1]))
            try page.click(BrowserPage.tile(ids[2]), modifiers: .shift)
            try page.dragAndDrop(from: BrowserPage.tile(ids[2]), to: page.center(of: ".gallery-row[data-gallery=trip]"))
            try #require(server.node.waitUntil { $0.titles("trip") == ["alice-1", "alice-2"] })
            #expect(server.node.requests(to: "/api/items/move").first?["to"] as? String == "trip")
            try page.waitFor("document.querySelector('#grid').textContent === 'alice-0alice-3'")
            try page.click(".gallery-row[data-gallery=trip]")
            try page.waitFor("document.querySelector('#grid').textContent === 'alice-1alice-2'")
            #expect(try page.evaluateString("document.getElementById('gallery-title').textContent") == "trip")
        }
    }

    @Test("A change made elsewhere moves the tile live, animated; after a restart the page shows what it missed")
    func liveEventsAndReconnect() throws {
        try PageScenario.run("page-live") { scenario in
            var server = try scenario.node("alice", pictures: 4)
            let node = server.node
            let ids = node.items("alice").map(\.id)
            let page = try scenario.open(server)
            let started = ContinuousClock.now
            try node.move([ids[3]], to: "alice", at: 0)
            try page.waitFor("document.querySelector('#grid').textContent === 'alice-3alice-0alice-1alice-2'")
            print("page test page-live: server move -> tile moved in the DOM within \(ContinuousClock.now - started) (polled every 20 ms)")
            #expect(try page.evaluate("__state.animated") as? Int ?? 0 > 0, "the moved tiles glide (FLIP)")

            server = try scenario.restart(server) {
                try page.waitFor("!__state.connected")
                try node.move([ids[0]], to: "alice", at: nil)
                node.seed("alice", [(title: "late", bytes: TestPictures.png(width: 60, height: 40, palette: 3), aspectRatio: 1.5)])
                try node.createGallery("while-down")
            }
            try page.waitFor("__state.connected", timeout: .seconds(10))
            try page.waitFor("document.querySelector('#grid').textContent === 'alice-3alice-1alice-2alice-0late'")
            try page.waitFor("[...document.querySelectorAll('.gallery-name')].some(e => e.textContent === 'while-down')")
            #expect(try page.evaluate("document.querySelectorAll('#grid .tile').length") as? Int == 5, "nothing applied twice")
            #expect(try page.evaluate("__state.lastEventId") as? Int == node.lastEventId)
        }
    }
}
