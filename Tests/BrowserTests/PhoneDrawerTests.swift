import Foundation
import GalleryTestSupport
import Testing

/// The phone's drawer as a modal place and the selection as a bar (phone.js), at 390 px with real
/// keys and real touch events (`Input.dispatchKeyEvent`, `Input.dispatchTouchEvent`) against the fake node.
@Suite("Phone: drawer focus, touch drops into the drawer, the selection bar", .serialized,
       .enabled(if: BrowserBinary.testsEnabled, "needs Chromium (see README set-up)"))
struct PhoneDrawerTests {
    /// What has the focus: its id, a gallery row's name, or its tag.
    private static let focused = """
        (() => { const a = document.activeElement; if (!a) return 'none';
          const inside = document.getElementById('sidebar').contains(a) ? 'in:' : 'out:';
          return inside + (a.id || (a.dataset && a.dataset.gallery) || a.tagName); })()
        """
    /// The focused element's place among the drawer's tab stops (-1: outside them).
    private static let stop = "drawerFocusables().indexOf(document.activeElement)"

    @Test("The open drawer keeps the focus: Tab and Shift+Tab cycle inside it; Escape closes it and the focus is back on the menu button")
    func focusTrap() throws {
        try PageScenario.run("phone-focus-trap") { scenario in
            let server = try scenario.node("alice", pictures: 4)
            for name in ["Family", "Screenshots"] { try server.node.createGallery(name) }
            let page = try scenario.open(server)
            try PageLooks.apply(PageLooks.phone, dark: false, to: page)
            try page.settle()
            try page.tap("#drawer-open")
            try page.waitFor("__state.drawerOpen && document.activeElement && document.getElementById('sidebar').contains(document.activeElement)")
            let stops = try #require(try page.evaluate("drawerFocusables().length") as? Int)
            #expect(stops >= 4, "close, the gallery list, the new-gallery field and button, the Trash: \(stops)")
            // Twice round with Tab: never outside the drawer, and back where it started.
            let start = try #require(try page.evaluate(Self.stop) as? Int)
            #expect(start >= 0)
            var seen: [Int] = []
            for _ in 0..<(2 * stops) {
                try page.press(.tab)
                seen.append(try #require(try page.evaluate(Self.stop) as? Int))
            }
            // Each Tab is the next stop, the last one wrapping to the first: twice round, back at the start.
            #expect(seen == (1...(2 * stops)).map { (start + $0) % stops }, "\(seen)")
            // Shift+Tab from the first stop goes to the last.
            try page.evaluate("drawerFocusables()[0].focus(); true")
            try page.press(.tab, modifiers: .shift)
            #expect(try page.evaluate("document.activeElement === drawerFocusables().at(-1)") as? Bool == true)
            try PageLooks.keep(page, as: "phone-drawer-focus")
            try page.press(.escape)
            try page.waitFor("!__state.drawerOpen")
            #expect(try page.evaluateString(Self.focused) == "out:drawer-open")
        }
    }

    @Test("A long-press drag held on the menu button opens the drawer; lifting the finger on a gallery moves the tiles there")
    func touchDropIntoDrawer() throws {
        try PageScenario.run("phone-drawer-drop") { scenario in
            let server = try scenario.node("alice", pictures: 5)
            try server.node.createGallery("Family")
            let ids = server.node.items("alice").map(\.id)
            let page = try scenario.open(server)
            try PageLooks.apply(PageLooks.phone, dark: false, to: page)
            try page.settle()

            // Select alice-1 with a long press, then long-press alice-3: both are dragged.
            let first = try page.center(of: BrowserPage.tile(ids[1]))
            try page.longPressDrag(from: first, to: first, until: "__state.touchDrag === 1", steps: 1)
            let pressed = try page.center(of: BrowserPage.tile(ids[3]))
            try page.touch("touchStart", [pressed])
            try page.waitFor("__state.touchDrag === 2", timeout: .seconds(5))
            let button = try page.center(of: "#drawer-open")
            for step in 1...6 {
                let f = Double(step) / 6
                try page.touch("touchMove", [PagePoint(x: pressed.x + (button.x - pressed.x) * f, y: pressed.y + (button.y - pressed.y) * f)])
            }
            // Held on the button: the drawer springs open under the finger.
            try page.waitFor("__state.drawerOpen && document.querySelector('#sidebar').getBoundingClientRect().left === 0", timeout: .seconds(5))
            let row = try page.center(of: ".gallery-row[data-gallery=\"Family\"]")
            for step in 1...4 {
                let f = Double(step) / 4
                try page.touch("touchMove", [PagePoint(x: button.x + (row.x - button.x) * f, y: button.y + (row.y - button.y) * f)])
            }
            try page.waitFor("__state.touchTarget === 'Family' && document.querySelector('.gallery-row[data-gallery=\"Family\"]').classList.contains('drop-target')")
            try PageLooks.keep(page, as: "phone-drawer-drop")
            try page.touch("touchEnd", [])
            try #require(server.node.waitUntil { $0.titles("Family") == ["alice-1", "alice-3"] }, "\(server.node.titles("Family"))")
            let move = try #require(server.node.requests(to: "/api/items/move").first)
            #expect(move["items"] as? [String] == [ids[1], ids[3]] && move["to"] as? String == "Family" && move["index"] == nil)
            try page.waitFor("!__state.drawerOpen && !document.querySelector('.drop-target')")
            try page.waitFor("document.querySelectorAll('#grid .tile').length === 3")
        }
    }

    @Test("A long-press drag held at the screen's left edge opens the drawer; lifting the finger on the Trash moves the tile there")
    func touchDropOnTrash() throws {
        try PageScenario.run("phone-drawer-trash") { scenario in
            let server = try scenario.node("alice", pictures: 3)
            let ids = server.node.items("alice").map(\.id)
            let page = try scenario.open(server)
            try PageLooks.apply(PageLooks.phone, dark: true, to: page)
            try page.settle()
            let pressed = try page.center(of: BrowserPage.tile(ids[2]))
            try page.touch("touchStart", [pressed])
            try page.waitFor("__state.touchDrag === 1", timeout: .seconds(5))
            let edge = PagePoint(x: 6, y: pressed.y)
            for step in 1...5 {
                let f = Double(step) / 5
                try page.touch("touchMove", [PagePoint(x: pressed.x + (edge.x - pressed.x) * f, y: pressed.y)])
            }
            try page.waitFor("__state.drawerOpen && document.querySelector('#sidebar').getBoundingClientRect().left === 0", timeout: .seconds(5))
            let trash = try page.center(of: "#trash")
            for step in 1...4 {
                let f = Double(step) / 4
                try page.touch("touchMove", [PagePoint(x: edge.x + (trash.x - edge.x) * f, y: edge.y + (trash.y - edge.y) * f)])
            }
            try page.waitFor("__state.touchTarget === 'trash' && document.getElementById('trash').classList.contains('drop-target')")
            try PageLooks.keep(page, as: "phone-drawer-trash-dark")
            try page.touch("touchEnd", [])
            try #require(server.node.waitUntil { $0.titles("alice") == ["alice-0", "alice-1"] }, "\(server.node.titles("alice"))")
            #expect(server.node.requests(to: "/api/items/delete").first?["items"] as? [String] == [ids[2]])
            #expect(server.node.requests(to: "/api/items/move").isEmpty)
            try page.waitFor("!__state.drawerOpen")
        }
    }

    @Test("With items selected a bar says how many: Move to… takes them to a gallery chosen in the drawer, Delete to the Trash, Clear unselects",
          arguments: [false, true])
    func selectionBar(dark: Bool) throws {
        let scheme = dark ? "dark" : "light"
        try PageScenario.run("phone-selection-bar-\(scheme)") { scenario in
            let server = try scenario.node("alice", pictures: 6)
            try server.node.createGallery("Family")
            let ids = server.node.items("alice").map(\.id)
            let page = try scenario.open(server)
            try PageLooks.apply(PageLooks.phone, dark: dark, to: page)
            try page.settle()
            #expect(try page.evaluate("document.getElementById('selection-bar').hidden") as? Bool == true)

            let pressed = try page.center(of: BrowserPage.tile(ids[0]))
            try page.longPressDrag(from: pressed, to: pressed, until: "__state.touchDrag === 1", steps: 1)
            try page.tap(BrowserPage.tile(ids[2]))
            try page.waitFor("!document.getElementById('selection-bar').hidden && __state.selectionBar === 2")
            #expect(try page.evaluateString("document.getElementById('selection-count').textContent") == "2 selected")
            let bar = try #require(try page.box("#selection-bar"))
            #expect(bar[0] >= 0 && bar[2] <= 390 && bar[3] <= 844, "the bar fits the phone: \(bar)")
            try page.settle()
            try PageLooks.keep(page, as: "phone-selection-bar-\(scheme)")

            // Move to…: the drawer opens to choose; a tap on Family moves the two, the bar goes.
            try page.tap("#selection-move")
            try page.waitFor("__state.drawerOpen && document.getElementById('drawer-title').textContent === 'Move 2 items to…'")
            try page.waitFor("document.querySelector('#sidebar').getBoundingClientRect().left === 0")
            try PageLooks.keep(page, as: "phone-move-to-\(scheme)")
            try page.tap(".gallery-row[data-gallery=\"Family\"]")
            try #require(server.node.waitUntil { $0.titles("Family") == ["alice-0", "alice-2"] }, "\(server.node.titles("Family"))")
            try page.waitFor("!__state.drawerOpen && document.getElementById('selection-bar').hidden")
            #expect(try page.evaluateString("document.getElementById('gallery-title').textContent") == "alice", "still on alice, not on Family")
            #expect(try page.evaluateString("document.getElementById('drawer-title').textContent") == "Galleries")

            // Clear: nothing selected, nothing sent.
            try page.waitFor("document.querySelectorAll('#grid .tile').length === 4")
            try page.settle()   // the tiles left glide to their new places
            let next = try page.center(of: BrowserPage.tile(ids[1]))
            try page.longPressDrag(from: next, to: next, until: "__state.touchDrag === 1", steps: 1)
            try page.waitFor("__state.selectionBar === 1")
            #expect(try page.evaluateString("document.getElementById('selection-count').textContent") == "1 selected")
            try page.tap("#selection-clear")
            try page.waitFor("document.getElementById('selection-bar').hidden && !document.querySelector('.tile[aria-selected=true]')")
            #expect(server.node.requests(to: "/api/items/delete").isEmpty)

            // Delete: to the Trash, one request.
            try page.longPressDrag(from: next, to: next, until: "__state.touchDrag === 1", steps: 1)
            try page.waitFor("__state.selectionBar === 1")
            try page.tap("#selection-delete")
            try #require(server.node.waitUntil { !$0.titles("alice").contains("alice-1") }, "\(server.node.titles("alice"))")
            #expect(server.node.requests(to: "/api/items/delete").first?["items"] as? [String] == [ids[1]])
            try page.waitFor("document.getElementById('selection-bar').hidden")
        }
    }
}
