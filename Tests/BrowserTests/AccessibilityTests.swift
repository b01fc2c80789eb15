import Foundation
import GalleryTestSupport
import Testing

/// Accessibility, measured in Chromium at 1440 px and 390 px, light and dark: every control's role
/// and accessible name (the browser's own accessibility tree), the order Tab visits them, text
/// contrast >= 4.5:1 and focus rings >= 3:1 (WCAG formulas over `getComputedStyle`, and for the rings
/// also from the rendered pixels, focused against unfocused: `RenderedRing`).
@Suite("Gallery page: accessibility", .serialized, .enabled(if: BrowserBinary.testsEnabled, "needs Chromium (see README set-up)"))
struct AccessibilityTests {
    static let cases: [(PageLooks.Screen, Bool)] = [(PageLooks.desktop, false), (PageLooks.desktop, true), (PageLooks.phone, false), (PageLooks.phone, true)]

    @Test("Roles and names, focus order, text contrast >= 4.5:1, focus rings >= 3:1", arguments: cases)
    func audit(screen: PageLooks.Screen, dark: Bool) throws {
        try PageScenario.run("a11y-\(screen.width)-\(dark ? "dark" : "light")") { scenario in
            let server = try scenario.node("alice", pictures: 6)
            try server.node.createGallery("trip")
            let ids = server.node.items("alice").map(\.id)
            let page = try scenario.open(server)
            try PageLooks.apply(screen, dark: dark, to: page)
            try page.settle()
            #expect(try page.evaluate(ContrastProbe.install) as? Bool == true)

            // Roles and names from the accessibility tree.
            try page.send("Accessibility.enable")
            let tree = try page.send("Accessibility.getFullAXTree")["nodes"] as? [[String: Any]] ?? []
            func value(_ node: [String: Any], _ key: String) -> String {
                (node[key] as? [String: Any])?["value"] as? String ?? ""
            }
            let shown = tree.filter { $0["ignored"] as? Bool != true }
            let interactive: Set<String> = ["button", "textbox", "searchbox", "combobox", "ComboBoxSelect", "slider", "listbox", "option",
                                            "link", "checkbox", "menuitem", "tab"]
            let unnamed = shown.filter { interactive.contains(value($0, "role")) && value($0, "name").trimmingCharacters(in: .whitespaces).isEmpty }
            #expect(unnamed.isEmpty, "controls without a name: \(unnamed.map { value($0, "role") })")
            let named = Set(shown.map { "\(value($0, "role")):\(value($0, "name"))" })
            var expected = ["slider:Zoom", "searchbox:Search titles", "listbox:Items", "option:alice-0", "button:Add photos"]
            // On a phone the closed drawer is out of the tree (and of the tab order) until its button opens it.
            let sidebar = ["button:Create gallery", "textbox:New gallery name", "listbox:Galleries", "option:alice ", "option:trip "]
            if screen.mobile { expected.append("button:Galleries") } else { expected += sidebar }
            let listed = named.sorted().filter { !$0.hasPrefix("StaticText") && !$0.hasPrefix("InlineTextBox") }
            // A gallery's option is named from its row (name, count, and the row's buttons): its name comes first.
            func has(_ names: Set<String>, _ entry: String) -> Bool { entry.hasPrefix("option:") ? names.contains { $0.hasPrefix(entry) } : names.contains(entry) }
            for entry in expected { #expect(has(named, entry), "\(entry) in \(listed)") }
            if screen.mobile { for entry in sidebar { #expect(!has(named, entry), "\(entry) hidden with the drawer") } }
            #expect(named.contains { $0.hasPrefix("combobox:Sort") || $0.hasPrefix("ComboBoxSelect:Sort") }, "the sort control")

            // Focus order: Tab from the top, with a ring of >= 3:1 on every stop.
            try page.evaluate("document.activeElement && document.activeElement.blur(); true")
            var order: [String] = []
            var rings: [String] = []
            for _ in 0..<24 {
                try page.press(.tab)
                let stop = try page.evaluateString("__contrast.name(document.activeElement) + (document.activeElement.dataset.gallery ? '=' + document.activeElement.dataset.gallery : '')") ?? "?"
                if stop == order.first || stop == "body" { break }
                order.append(stop)
                try page.settle()
                let ring = try page.evaluate("__contrast.ring(document.activeElement)") as? [String: Any]
                let ratio = ring?["ratio"] as? Double ?? 0
                if ratio < 3 || (ring?["width"] as? Double ?? 0) < 2 { rings.append("\(stop): \(ring.map { "\($0)" } ?? "no ring")") }
                // And from the rendered pixels: the same pixels focused and not, >= 3:1 (WCAG 2.4.13).
                let rendered = try RenderedRing.measure(page)
                if !rendered.passes { rings.append("rendered \(rendered)") }
            }
            let expectedOrder = screen.mobile
                ? ["#drawer-open", "#picker", "#zoom", "#search", "#sort", "#grid"]
                : ["li.gallery-row=alice", "#new-gallery-name", "button", "#picker", "#zoom", "#search", "#sort", "#grid"]
            // These stops in this order (the sidebar's rows add their Rename and Delete buttons, and the Trash, between them).
            var rest = order[...]
            for stop in expectedOrder {
                guard let found = rest.firstIndex(of: stop) else { Issue.record("\(stop) missing from the tab order, or out of order: \(order)"); break }
                rest = rest[(found + 1)...]
            }
            #expect(order.first == expectedOrder.first, "\(order)")
            #expect(order.last == "#grid", "the grid is the last stop: \(order)")
            // Into the grid: an arrow key focuses a tile, which shows its ring.
            try page.evaluate("document.getElementById('grid').focus(); true")
            try page.press(.arrowRight)
            try page.waitFor("document.activeElement.classList.contains('tile')")
            try page.settle()   // the ring glides in (a box-shadow transition): measure where it rests
            let tileRing = try page.evaluate("__contrast.ring(document.activeElement)") as? [String: Any]
            if (tileRing?["ratio"] as? Double ?? 0) < 3 { rings.append("tile: \(tileRing.map { "\($0)" } ?? "no ring")") }
            let renderedTile = try RenderedRing.measure(page)
            if !renderedTile.passes { rings.append("rendered tile \(renderedTile)") }
            if screen.mobile {
                try page.tap("#drawer-open")
                try page.waitFor("document.activeElement.classList.contains('gallery-row')")
                try page.press(.arrowDown)
                let drawerTree = try page.send("Accessibility.getFullAXTree")["nodes"] as? [[String: Any]] ?? []
                let drawerNames = Set(drawerTree.filter { $0["ignored"] as? Bool != true }.map { "\(value($0, "role")):\(value($0, "name"))" })
                for entry in sidebar { #expect(has(drawerNames, entry), "\(entry) in the open drawer") }
                let rowRing = try page.evaluate("__contrast.ring(document.activeElement)") as? [String: Any]
                if (rowRing?["ratio"] as? Double ?? 0) < 3 { rings.append("drawer row: \(rowRing.map { "\($0)" } ?? "no ring")") }
                try page.settle()
                let renderedRow = try RenderedRing.measure(page)
                if !renderedRow.passes { rings.append("rendered drawer row \(renderedRow)") }
                try page.press(.escape)
                try page.waitFor("!__state.drawerOpen")
            }
            #expect(rings.isEmpty, "focus rings under 3:1: \(rings)")

            // Text contrast, with a selected tile, both kinds of message, a view note and the offline banner showing.
            try page.click(BrowserPage.tile(ids[1]))
            try page.evaluate("toast('Moved 2 items'); toast('Cannot move: example', 'error'); document.getElementById('view-note').textContent = 'Sorted by title: a view.'; document.getElementById('offline').hidden = false; true")
            let text = try #require(try page.evaluate("__contrast.textFailures(4.5)") as? [String: Any])
            // A phone's tiles have no captions (Google Photos' grid): six texts fewer than before.
            #expect(text["checked"] as? Int ?? 0 >= (screen.mobile ? 10 : 12), "\(text)")
            #expect((text["failures"] as? [String] ?? ["?"]).isEmpty, "text under 4.5:1: \(text["failures"] ?? "")")
            try PageLooks.keep(page, as: "a11y-\(screen.width)-\(dark ? "dark" : "light")")
        }
    }
}
