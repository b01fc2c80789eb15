import Foundation
import GalleryTestSupport
import Testing

/// A large gallery on a real node paints its first screen before its whole list has arrived: the
/// page asks for the first items (`?limit=N`) and then for the whole list, and shows the first answer
/// at once. Here the whole answer is held in the browser (DevTools' `Fetch` domain pauses it after its
/// head, before its body reaches the page), so the test sees the page in between for as long as it
/// needs, whatever the machine's load.
@Suite("Gallery page on a real node: the first screen before the whole list", .serialized,
       .enabled(if: BrowserBinary.testsEnabled, "needs Chromium (see README set-up)"))
struct RealFirstScreenTests {
    static let itemCount = 1_500

    @Test("1,500 items: tiles and the whole count paint while the whole list is held; a click, the keyboard and Ctrl+A work, and the whole list keeps the tiles")
    func firstScreenBeforeWholeList() throws {
        try RealSpace.run("first-screen") { space in
            let node = try space.node("alice")
            var paths: [String] = []
            for index in 0..<Self.itemCount {
                paths.append(try space.file(String(format: "p%05d.png", index),
                                            RealPictures.png(width: index % 3 == 0 ? 60 : 90, height: 60, palette: index % 8)))
            }
            for start in stride(from: 0, to: paths.count, by: 500) {
                try node.gallery(["add"] + paths[start..<min(paths.count, start + 500)])
            }
            let ids = try node.ids("alice")
            try #require(ids.count == Self.itemCount)

            let page = try space.browser.newPage(url: "about:blank")
            // Only the whole list (a path ending in /items, no query) is held, after its head.
            try page.send("Fetch.enable", ["patterns": [["urlPattern": "*/items", "requestStage": "Response"]]])
            try page.navigate(to: node.link)
            let paused = try page.waitForEvent("Fetch.requestPaused", timeout: .seconds(30))
            let requestId = try #require(paused.params["requestId"] as? String)
            #expect((paused.params["request"] as? [String: Any])?["url"] as? String == "http://127.0.0.1:\(node.webPort)/api/galleries/alice/items")

            // The first screen is painted from the first answer; the count is the gallery's.
            try page.waitFor("window.__state && __state.partial && document.querySelectorAll('#grid .tile').length > 0", timeout: .seconds(30))
            try page.evaluate("new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")
            #expect(try page.evaluateString("document.getElementById('count').textContent") == "1,500 items")
            let shown = try page.evaluate("[...document.querySelectorAll('#grid .tile')].map((t) => t.dataset.id)") as? [String] ?? []
            #expect(!shown.isEmpty && shown.count < Self.itemCount, "\(shown.count) tiles")
            #expect(shown == Array(ids.prefix(shown.count)), "the gallery's first items, in its order")
            #expect(try page.evaluate("""
                Math.max(...[...document.querySelectorAll('#grid .tile')].map((t) => t.getBoundingClientRect().bottom))
                  >= document.getElementById('scroller').getBoundingClientRect().bottom
                """) as? Bool == true, "the first screen is filled to its bottom")
            #expect(try page.evaluate("performance.getEntriesByType('resource').some((e) => new URL(e.name).pathname.endsWith('/items') && !e.name.includes('limit='))") as? Bool == false,
                    "the whole list has not been received")
            let limit = Int(try page.evaluateString("performance.getEntriesByType('resource').map((e) => new URL(e.name)).find((u) => u.pathname.endsWith('/items')).searchParams.get('limit')") ?? "") ?? 0
            #expect(limit >= shown.count && limit < Self.itemCount, "the first answer holds the first screen: limit \(limit), \(shown.count) tiles")
            try PageLooks.keep(page, as: "first-screen-partial")

            // A real click selects, an arrow key moves the focus, Ctrl+A waits for every item.
            try page.evaluate("window.__second = document.querySelector('#grid .tile[data-id=\"\(ids[1])\"]'); true")
            try page.click(BrowserPage.tile(ids[1]))
            try page.waitFor("document.querySelectorAll('#grid .tile.selected').length === 1 && window.__second.classList.contains('selected')")
            try page.press(.arrowRight)
            try page.waitFor("document.activeElement && document.activeElement.dataset.id === \(BrowserPage.jsString(ids[2]))")
            try page.press(.character("a"), modifiers: .control)
            try page.evaluate("new Promise((r) => setTimeout(r, 100))")
            #expect(try page.evaluate("document.querySelectorAll('#grid .tile.selected').length") as? Int == 1,
                    "Ctrl+A waits for the whole list instead of selecting the first screen only")
            #expect(try page.evaluate("__state.ready") as? Bool == false)

            // The whole list arrives: every item is selected, the tiles shown are the same elements.
            try page.send("Fetch.continueRequest", ["requestId": requestId])
            try page.waitFor("__state.ready && !__state.partial && __state.connected", timeout: .seconds(30))
            try page.waitFor("S.selected.size === \(Self.itemCount)")
            #expect(try page.evaluate("window.__second.isConnected && window.__second.classList.contains('selected')") as? Bool == true,
                    "the tile clicked before the whole list arrived is the same element, still selected")
            #expect(try page.evaluateString("document.getElementById('count').textContent") == "1,500 items")
            try page.evaluate("document.getElementById('scroller').scrollTop = 1e9; new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")
            try page.waitFor("!!document.querySelector('#grid .tile[data-id=\(BrowserPage.jsString(ids[ids.count - 1]))]')")
        }
    }
}
