import Foundation
import GalleryTestSupport
import Testing

/// The page on a phone (390 px, mobile viewport, touch) in light and dark: the drawer, nothing
/// scrolling sideways, taps, long-press drags, pinches, and Add photos. Real touch events
/// (`Input.dispatchTouchEvent`) against the fake node.
@Suite("Gallery page on a phone", .serialized, .enabled(if: BrowserBinary.testsEnabled, "needs Chromium (see README set-up)"))
struct PhonePageTests {
    @Test("At 390 px the sidebar is a drawer, nothing scrolls sideways, the heading and zoom fit", arguments: [false, true])
    func drawerAndFit(dark: Bool) throws {
        try PageScenario.run("phone-layout-\(dark ? "dark" : "light")") { scenario in
            let server = try scenario.node("alice", pictures: 9)
            try server.node.createGallery("Summer trip to the lakes")
            let page = try scenario.open(server)
            try PageLooks.apply(PageLooks.phone, dark: dark, to: page)
            try page.settle()
            #expect(try page.evaluate("document.scrollingElement.scrollWidth <= innerWidth && document.body.scrollWidth <= innerWidth") as? Bool == true,
                    "nothing scrolls sideways")
            let sidebar = try #require(try page.box("#sidebar"))
            #expect(sidebar[2] <= 0, "the drawer is closed: \(sidebar)")
            for selector in ["#gallery-title", "#zoom", "#add-photos", "#drawer-open", "#search", "#sort"] {
                let box = try #require(try page.box(selector), "\(selector)")
                #expect(box[0] >= 0 && box[2] <= 390 && box[2] > box[0], "\(selector) fits: \(box)")
            }
            let tiles = try page.evaluate("[...document.querySelectorAll('#grid .tile')].every(t => t.getBoundingClientRect().right <= innerWidth)") as? Bool
            #expect(tiles == true, "every tile fits the width")
            try PageLooks.keep(page, as: "phone-\(dark ? "dark" : "light")")

            // The menu button opens the drawer; choosing a gallery there shows it and closes the drawer.
            try page.tap("#drawer-open")
            try page.waitFor("__state.drawerOpen && document.querySelector('#sidebar').getBoundingClientRect().left >= 0")
            try page.waitFor("document.querySelector('#sidebar').getBoundingClientRect().left === 0")
            #expect(try page.evaluateString("document.querySelector('#drawer-open').getAttribute('aria-expanded')") == "true")
            try PageLooks.keep(page, as: "phone-drawer-\(dark ? "dark" : "light")")
            try page.tap(".gallery-row[data-gallery=\"Summer trip to the lakes\"]")
            try page.waitFor("document.getElementById('gallery-title').textContent === 'Summer trip to the lakes'")
            try page.waitFor("!__state.drawerOpen")
            #expect(try page.evaluate("document.scrollingElement.scrollWidth <= innerWidth") as? Bool == true)
        }
    }

    @Test("Dark mode follows prefers-color-scheme: every surface and text colour switches (the README's phone picture)")
    func darkMode() throws {
        try PageScenario.run("phone-schemes") { scenario in
            let server = try scenario.node("alice", pictures: 40)
            for name in ["Summer trip", "Family", "Screenshots"] { try server.node.createGallery(name) }
            let page = try scenario.open(server)
            let ids = server.node.items("alice").map(\.id)
            try PageLooks.apply(PageLooks.phone, dark: false, to: page)
            try page.settle()   // the phone's default zoom (PhoneGridTests)
            let pressed = try page.center(of: BrowserPage.tile(ids[1]))
            try page.longPressDrag(from: pressed, to: pressed, until: "__state.touchDrag === 1", steps: 1)
            try page.tap(BrowserPage.tile(ids[2]))
            try page.waitFor("document.querySelectorAll('.tile[aria-selected=true]').length === 2")
            try page.waitFor("!document.getElementById('selection-bar').hidden && document.getElementById('selection-count').textContent === '2 selected'")
            try page.settle()
            let probe = "(() => { const s = getComputedStyle(document.documentElement), h = getComputedStyle(document.getElementById('gallery-title')), "
                + "p = getComputedStyle(document.querySelector('.add-photos')); return [s.backgroundColor, h.color, p.backgroundColor]; })()"
            let light = try page.evaluate(probe) as? [String] ?? []
            let lightShot = try PageLooks.capture(page)
            try page.tap("#drawer-open")
            try page.waitFor("__state.drawerOpen")
            try page.settle()
            let drawerShot = try PageLooks.capture(page)
            try page.tap("#scrim")
            try page.waitFor("!__state.drawerOpen")
            try PageLooks.apply(PageLooks.phone, dark: true, to: page)
            try page.settle()
            let dark = try page.evaluate(probe) as? [String] ?? []
            #expect(light == ["rgb(246, 245, 242)", "rgb(31, 35, 40)", "rgb(31, 35, 40)"], "\(light)")
            #expect(dark == ["rgb(20, 21, 24)", "rgb(231, 232, 235)", "rgb(231, 232, 235)"], "\(dark)")
            try PageLooks.keepSideBySide([lightShot, drawerShot, PageLooks.capture(page)], in: scenario.browser, as: "phone")
        }
    }

    @Test("Touch: a long press selects, then taps add and unselect; a long press drags the tile to a new place; a pinch zooms")
    func touch() throws {
        try PageScenario.run("phone-touch") { scenario in
            let server = try scenario.node("alice", pictures: 6)
            let ids = server.node.items("alice").map(\.id)
            let page = try scenario.open(server)
            try PageLooks.apply(PageLooks.phone, dark: false, to: page)
            try page.settle()

            // A long press selects (and lifting the finger where it pressed moves nothing); then taps add and remove.
            let pressed = try page.center(of: BrowserPage.tile(ids[1]))
            try page.longPressDrag(from: pressed, to: pressed, until: "__state.touchDrag === 1", steps: 1)
            try page.waitFor("document.querySelectorAll('.tile[aria-selected=true]').length === 1")
            try page.tap(BrowserPage.tile(ids[2]))
            try page.waitFor("document.querySelectorAll('.tile[aria-selected=true]').length === 2")
            try page.tap(BrowserPage.tile(ids[1]))
            try page.waitFor("document.querySelectorAll('.tile[aria-selected=true]').length === 1")
            #expect(try page.evaluateString("document.querySelector('.tile[aria-selected=true]').dataset.id") == ids[2])
            #expect(server.node.requests(to: "/api/items/move").isEmpty, "taps change nothing on the node")

            // Long-press alice-0 and drag it just past alice-3: one move, alice-0 and the selected alice-2 as one run.
            try page.tap(BrowserPage.tile(ids[2]))   // unselect: only the pressed tile moves
            try page.waitFor("document.querySelectorAll('.tile[aria-selected=true]').length === 0")
            let source = try page.center(of: BrowserPage.tile(ids[0]))
            let target = try page.point(in: BrowserPage.tile(ids[3]), fx: 0.85)
            try page.longPressDrag(from: source, to: target, until: "__state.touchDrag === 1")
            try #require(server.node.waitUntil { $0.titles("alice") == ["alice-1", "alice-2", "alice-3", "alice-0", "alice-4", "alice-5"] },
                         "\(server.node.titles("alice"))")
            let move = try #require(server.node.requests(to: "/api/items/move").first)
            #expect(move["items"] as? [String] == [ids[0]])
            #expect(move["index"] as? Int == 3)
            try page.waitFor("document.querySelector('#grid').textContent.startsWith('alice-1alice-2alice-3alice-0')")

            // A pinch spreading two fingers from 100 to 200 px doubles the tile height (the page does not zoom),
            // right after a long-press drag (PhoneGridTests checks it on a fresh page, both ways).
            let before = try #require(try page.evaluate("parseInt(getComputedStyle(document.documentElement).getPropertyValue('--h'))") as? Int)
            try page.pinch(at: page.center(of: "#scroller"), from: 100, to: 200)
            try page.waitFor("__state.pinched === \(before * 2)")
            try page.settle()
            #expect(try page.evaluate("Math.round(document.querySelector('#grid .tile .frame').getBoundingClientRect().height)") as? Int == before * 2)
            #expect(try page.evaluate("visualViewport.scale") as? Double ?? 0 == 1, "the browser did not zoom the page itself")
        }
    }

    @Test("Add photos at every width: the picker uploads through the page's upload path; the placeholder keeps the picture's shape at once",
          arguments: [PageLooks.phone, PageLooks.desktop])
    func addPhotos(screen: PageLooks.Screen) throws {
        try PageScenario.run("add-photos-\(screen.width)") { scenario in
            let server = try scenario.node("alice", pictures: 2)
            let page = try scenario.open(server)
            try PageLooks.apply(screen, dark: false, to: page)
            #expect(try page.evaluateString("document.getElementById('picker').accept") == "image/*")
            #expect(try page.evaluate("document.getElementById('picker').multiple") as? Bool == true)
            let wide = try PageLooks.pictureFile("wide.png", width: 200, height: 100)
            let tall = try PageLooks.pictureFile("tall.png", width: 60, height: 120)
            try page.pickFiles([wide, tall], in: "#picker")
            try #require(server.node.waitUntil { $0.titles("alice").contains("tall.png") && $0.items("alice").allSatisfy { $0.state == "ready" } })
            let announce = try #require(server.node.requests(to: "/api/uploads").first)
            #expect((announce["files"] as? [[String: Any]])?.compactMap { $0["name"] as? String } == ["wide.png", "tall.png"])
            // The fake node never learns the sizes: the shapes are the page's own measurements.
            try page.waitFor("document.querySelectorAll('#grid .tile').length === 4")
            let ratios = try page.evaluate("""
                ['wide.png', 'tall.png'].map((t) => [...document.querySelectorAll('#grid .tile')].find((e) => e.title === t))
                  .map((e) => e.querySelector('.frame').getBoundingClientRect()).map((r) => r.width / r.height)
                """) as? [Double] ?? []
            #expect(ratios.count == 2 && abs(ratios[0] - 2) < 0.05 && abs(ratios[1] - 0.5) < 0.05, "\(ratios)")
        }
    }
}
