import Foundation
import GalleryTestSupport
import Testing

/// What people expect of a photo page at 1440 px, light and dark, with real mouse and keyboard
/// events: rubber-band selection, dragging out to the desktop, search and sort as a view, arrow
/// keys in the sidebar, and the offline banner.
@Suite("Gallery page: selection, views, offline", .serialized, .enabled(if: BrowserBinary.testsEnabled, "needs Chromium (see README set-up)"))
struct DesktopPolishTests {
    @Test("A rubber band drawn on the grid's background selects the tiles it touches; Shift adds to the selection", arguments: [false, true])
    func rubberBand(dark: Bool) throws {
        try PageScenario.run("rubber-band-\(dark ? "dark" : "light")") { scenario in
            let server = try scenario.node("alice", pictures: 12)
            let ids = server.node.items("alice").map(\.id)
            let page = try scenario.open(server)
            try PageLooks.apply(PageLooks.desktop, dark: dark, to: page)
            try page.settle()
            // From the gap left of the second tile's top to the middle of the fourth: tiles 1, 2, 3.
            let second = try #require(try page.box(BrowserPage.tile(ids[1])))
            let fourth = try #require(try page.box(BrowserPage.tile(ids[3])))
            let start = PagePoint(x: second[0] - 6, y: second[1] - 3)
            let end = PagePoint(x: (fourth[0] + fourth[2]) / 2, y: (fourth[1] + fourth[3]) / 2)
            try page.mouse("mouseMoved", at: start)
            try page.mouse("mousePressed", at: start, button: "left", buttons: 1, clickCount: 1)
            for step in 1...6 {
                let f = Double(step) / 6
                try page.mouse("mouseMoved", at: PagePoint(x: start.x + (end.x - start.x) * f, y: start.y + (end.y - start.y) * f),
                               button: "left", buttons: 1)
            }
            #expect(try page.evaluate("!document.getElementById('band').hidden") as? Bool == true, "the band shows while drawn")
            try PageLooks.keep(page, as: "rubber-band-\(dark ? "dark" : "light")")
            try page.mouse("mouseReleased", at: end, button: "left", buttons: 0, clickCount: 1)
            try page.waitFor("document.getElementById('band').hidden")
            let selected = try page.evaluate("[...document.querySelectorAll('.tile[aria-selected=true]')].map(t => t.dataset.id)") as? [String]
            #expect(selected == [ids[1], ids[2], ids[3]])
            // Shift and a band around the sixth tile only: four selected.
            let sixth = try #require(try page.box(BrowserPage.tile(ids[5])))
            let from = PagePoint(x: sixth[0] - 5, y: sixth[1] - 3), to = PagePoint(x: sixth[0] + 20, y: sixth[1] + 20)
            try page.mouse("mouseMoved", at: from, modifiers: .shift)
            try page.mouse("mousePressed", at: from, button: "left", buttons: 1, clickCount: 1, modifiers: .shift)
            try page.mouse("mouseMoved", at: to, button: "left", buttons: 1, modifiers: .shift)
            try page.mouse("mouseReleased", at: to, button: "left", buttons: 0, clickCount: 1, modifiers: .shift)
            try page.waitFor("document.querySelectorAll('.tile[aria-selected=true]').length === 4")
            #expect(server.node.requests(to: "/api/items/move").isEmpty && server.node.requests(to: "/api/items/delete").isEmpty)
        }
    }

    @Test("Dragging tiles out carries DownloadURL (type, file name, the blob's address), beside the page's own types")
    func dragOutToDesktop() throws {
        try PageScenario.run("download-url") { scenario in
            let server = try scenario.node("alice", pictures: 3)
            let item = try #require(server.node.items("alice").first)
            let page = try scenario.open(server)
            try PageLooks.apply(PageLooks.desktop, dark: false, to: page)
            // DevTools hands over the custom types but keeps DownloadURL for the browser's own download:
            // read it in the page, at the end of the real dragstart (a listener after the page's own).
            try page.evaluate("document.addEventListener('dragstart', (e) => { window.__download = e.dataTransfer.getData('DownloadURL'); "
                              + "window.__types = [...e.dataTransfer.types]; }); true")
            let from = try page.center(of: BrowserPage.tile(item.id))
            let data = try page.startInterceptedDrag(from: from, toward: PagePoint(x: from.x + 300, y: from.y + 200))
            try page.finishDrag(data, at: PagePoint(x: from.x + 300, y: from.y + 200), droppedElsewhere: true)
            let hash = try #require(item.hash)
            #expect(try page.evaluateString("window.__download") == "image/png:alice-0.png:\(server.origin)/blobs/\(hash)")
            #expect((try page.evaluate("window.__types") as? [String])?.contains("downloadurl") == true)
            #expect(data.item("application/x-gallerysync-items+json") != nil)
            #expect(data.item("text/uri-list") == "\(server.origin)/blobs/\(hash)")
            // The address serves the picture to the signed-in browser.
            let fetched = try page.evaluate("fetch('/blobs/\(hash)').then(r => r.ok ? r.arrayBuffer() : null).then(b => b && b.byteLength)") as? Int
            #expect(fetched == item.bytes)
        }
    }

    @Test("Search by title and sort are a view: the gallery's order is untouched, reordering is off and the page says so", arguments: [false, true])
    func searchAndSort(dark: Bool) throws {
        try PageScenario.run("search-sort-\(dark ? "dark" : "light")") { scenario in
            let server = try scenario.node("alice", pictures: 12)
            let node = server.node
            let ids = node.items("alice").map(\.id)
            try node.update(ids[2], field: "title", value: "zebra crossing")
            try node.update(ids[7], field: "title", value: "Zebra at noon")
            try node.update(ids[9], field: "title", value: "apple")
            let page = try scenario.open(server)
            try PageLooks.apply(PageLooks.desktop, dark: dark, to: page)
            try page.click("#search")
            try page.insertText("zebra")
            try page.waitFor("document.querySelector('#count').textContent === '2 of 12 items'")
            #expect(try page.tileTitles() == "zebra crossing,Zebra at noon")
            #expect(try page.evaluateString("document.getElementById('view-note').textContent")?.contains("reorder is off") == true)
            // A drag within the view is refused: no move reaches the node.
            _ = try page.dragAndDrop(from: BrowserPage.tile(ids[7]), to: page.point(in: BrowserPage.tile(ids[2]), fx: 0.1))
            try page.click(BrowserPage.tile(ids[7]))
            try page.press(.arrowLeft, modifiers: .alt)
            try page.waitFor("__state.toasts.some(t => t.includes('reorder is off'))")
            #expect(node.requests(to: "/api/items/move").isEmpty)
            try PageLooks.keep(page, as: "search-\(dark ? "dark" : "light")")

            // Escape clears the search; sorting by title with the keyboard on the select.
            try page.click("#search")
            try page.press(.escape)
            try page.waitFor("document.querySelector('#count').textContent === '12 items'")
            try page.click("#sort")
            try page.press(.escape)     // close the popup the click opened, keep the focus
            try page.press(.arrowDown)
            try page.press(.arrowDown)
            try page.waitFor("document.getElementById('sort').value === 'title'")
            let sorted = try page.tileTitles().split(separator: ",").map(String.init)
            #expect(sorted.first == "alice-0" && sorted.last == "zebra crossing", "\(sorted)")
            #expect(sorted == sorted.sorted { $0.localizedStandardCompare($1) == .orderedAscending }, "\(sorted)")
            #expect(node.titles("alice")[2] == "zebra crossing", "the gallery keeps its order")
            // Back to the gallery's order: reordering works again.
            try page.evaluate("(() => { const s = document.getElementById('sort'); s.value = ''; s.dispatchEvent(new Event('change')); })()")
            try page.waitFor("document.getElementById('view-note').textContent === ''")
            try page.settle()
            _ = try page.dragAndDrop(from: BrowserPage.tile(ids[0]), to: page.point(in: BrowserPage.tile(ids[2]), fx: 0.9))
            try #require(node.waitUntil { $0.titles("alice").prefix(3) == ["alice-1", "zebra crossing", "alice-0"] }, "\(node.titles("alice"))")
        }
    }

    @Test("Arrow keys, Home and End move along the sidebar's galleries (one tab stop); Enter opens one")
    func sidebarArrows() throws {
        try PageScenario.run("sidebar-keys") { scenario in
            let server = try scenario.node("alice", pictures: 2)
            for name in ["beach", "city", "dogs"] { try server.node.createGallery(name) }
            let page = try scenario.open(server)
            try PageLooks.apply(PageLooks.desktop, dark: false, to: page)
            #expect(try page.evaluate("[...document.querySelectorAll('.gallery-row')].map(r => r.tabIndex)") as? [Int] == [0, -1, -1, -1])
            try page.click(".gallery-row[data-gallery=alice]")
            func focused() throws -> String? { try page.evaluateString("document.activeElement.dataset.gallery") }
            try page.press(.arrowDown)
            #expect(try focused() == "beach")
            try page.press(.arrowDown)
            try page.press(.arrowDown)
            try page.press(.arrowDown)
            #expect(try focused() == "dogs", "stops at the end")
            try page.press(.arrowUp)
            #expect(try focused() == "city")
            try page.press(Key(key: "Home", code: "Home", keyCode: 36))
            #expect(try focused() == "alice")
            try page.press(Key(key: "End", code: "End", keyCode: 35))
            try page.press(.enter)
            try page.waitFor("document.getElementById('gallery-title').textContent === 'dogs'")
            try page.waitFor("document.activeElement.dataset.gallery === 'dogs'")
            // Still one tab stop after the list is drawn again, and the focus stays on it.
            #expect(try page.evaluate("[...document.querySelectorAll('.gallery-row')].filter(r => r.tabIndex === 0).length") as? Int == 1)
            #expect(try page.evaluate("getComputedStyle(document.activeElement).outlineStyle") as? String == "solid", "the focus shows")
        }
    }

    @Test("Node gone: an unmistakable banner with a countdown; changes refused with a message, nothing sent; Retry now reconnects",
          arguments: [PageLooks.desktop, PageLooks.phone])
    func offline(screen: PageLooks.Screen) throws {
        try PageScenario.run("offline-\(screen.width)") { scenario in
            var server = try scenario.node("alice", pictures: 4)
            let node = server.node
            let ids = node.items("alice").map(\.id)
            let page = try scenario.open(server)
            try PageLooks.apply(screen, dark: false, to: page)
            server = try scenario.restart(server) {
                try page.waitFor("__state.offline === true", timeout: .seconds(10))
                try page.waitFor("!document.getElementById('offline').hidden")
                let text = try page.evaluateString("document.getElementById('offline').textContent") ?? ""
                #expect(text.contains("Not connected to alice. Retrying in") && text.contains("Retry now"), "\(text)")
                let banner = try #require(try page.box("#offline"))
                #expect(banner[1] == 0 && banner[2] - banner[0] == Double(screen.width), "across the top: \(banner)")
                try PageLooks.keep(page, as: "offline-\(screen.width)")
                // A delete while offline is refused at once, with a message; no request leaves the page.
                let sent = try page.evaluate("__state.requests.length") as? Int ?? 0
                try page.click(BrowserPage.tile(ids[0]))
                try page.press(.delete)
                try page.waitFor("__state.toasts.some(t => t.startsWith('Cannot delete: Not connected to alice'))")
                #expect(try page.evaluate("__state.requests.slice(\(sent)).some(r => r.method !== 'GET')") as? Bool == true,
                        "the page recorded the attempt")
                // The other changes are refused the same way, never queued: a move (Alt+Arrow), Add photos, a new gallery.
                try page.press(.arrowRight, modifiers: .alt)
                try page.waitFor("__state.toasts.some(t => t.startsWith('Cannot move: Not connected to alice'))")
                let picture = try PageLooks.pictureFile("offline.png", width: 30, height: 20)
                try page.pickFiles([picture], in: "#picker")
                try page.waitFor("__state.toasts.some(t => t.startsWith('Cannot upload: Not connected to alice'))")
                if screen.mobile {
                    try page.tap("#drawer-open")
                    try page.waitFor("__state.drawerOpen && document.querySelector('#sidebar').getBoundingClientRect().left === 0")
                }
                try page.click("#new-gallery-name")
                try page.insertText("later")
                try page.press(.enter)
                try page.waitFor("__state.toasts.some(t => t.startsWith('Cannot create “later”: Not connected to alice'))")
                if screen.mobile {
                    try page.press(.escape)
                    try page.waitFor("!__state.drawerOpen")
                }
                #expect(try page.evaluate("document.querySelectorAll('#grid .tile.placeholder').length") as? Int == 0, "no placeholder waits for the node")
                // Retry now while still down: the countdown starts again.
                let retries = try page.evaluate("__state.retries || 0") as? Int ?? 0
                try page.click("#offline-retry")
                try page.waitFor("(__state.retries || 0) > \(retries)")
                try page.waitFor("/Retrying in [123] s/.test(document.getElementById('offline-text').textContent)", timeout: .seconds(10))
            }
            for path in ["/api/items/delete", "/api/items/move", "/api/uploads", "/api/galleries"] {
                #expect(node.requests(to: path).isEmpty, "nothing reached the node: \(path)")
            }
            #expect(try page.evaluateString("document.getElementById('gallery-title').textContent") == "alice")
            #expect(node.titles("alice") == (0..<4).map { "alice-\($0)" }, "the order is untouched")
            try page.click("#offline-retry")
            try page.waitFor("__state.connected && __state.offline === false && document.getElementById('offline').hidden", timeout: .seconds(10))
            #expect(node.titles("alice").count == 4)
        }
    }
}
