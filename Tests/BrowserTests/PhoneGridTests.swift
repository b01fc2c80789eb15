import Foundation
import GalleryTestSupport
import Testing

/// The grid's density on a phone (390 px, touch): the default zoom puts 3 to 4 tiles in a row, as
/// Google Photos' phone grid, for galleries of landscapes, squares, portraits and a mix; a desktop
/// (1440 px) keeps 160 px tiles with captions; a two-finger pinch to twice the distance doubles the
/// tile size, and the zoom a person picked is kept across a reload. Real touch events.
@Suite("Phone grid: density and pinch", .serialized, .enabled(if: BrowserBinary.testsEnabled, "needs Chromium (see README set-up)"))
struct PhoneGridTests {
    /// Tiles per row, for each row fully inside the viewport but the last of the gallery, from the
    /// tiles' rendered boxes; and whether any tile pokes out of the screen.
    static let rowCounts = """
        (() => { const rows = new Map(); const tiles = [...document.querySelectorAll('#grid .tile')];
          for (const t of tiles) { const r = t.getBoundingClientRect(); if (r.top < 0 || r.bottom > innerHeight) continue;
            const key = Math.round(r.top); rows.set(key, (rows.get(key) || 0) + 1); }
          const counts = [...rows.entries()].sort((a, b) => a[0] - b[0]).map((e) => e[1]);
          const lastTop = Math.round(tiles[tiles.length - 1].getBoundingClientRect().top);
          if (rows.has(lastTop)) counts.pop();
          return counts; })()
        """

    /// `count` pictures of `aspect` (width / height).
    static func pictures(_ prefix: String, _ count: Int, aspect: Double) -> [(title: String, bytes: [UInt8], aspectRatio: Double)] {
        (0..<count).map { index in
            let height = 80, width = Int((Double(height) * aspect).rounded())
            return (title: "\(prefix)-\(index)", bytes: TestPictures.png(width: width, height: height, palette: index), aspectRatio: aspect)
        }
    }

    @Test("At 390 px the default zoom shows 3 to 4 tiles a row (landscapes, squares, portraits, a mix); at 1440 px it stays 160 px")
    func density() throws {
        try PageScenario.run("phone-density") { scenario in
            let server = try scenario.node("alice", pictures: 24)   // a mix: two 3:2 landscapes for each 3:4 portrait
            server.node.seed("camera", Self.pictures("camera", 24, aspect: 1.5))
            server.node.seed("squares", Self.pictures("square", 24, aspect: 1))
            server.node.seed("portraits", Self.pictures("portrait", 24, aspect: 0.75))
            let page = try scenario.open(server)
            try PageLooks.apply(PageLooks.phone, dark: false, to: page)
            try page.settle()
            for gallery in ["alice", "camera", "squares", "portraits"] {
                if gallery != "alice" {
                    try page.tap("#drawer-open")
                    try page.waitFor("__state.drawerOpen && document.querySelector('#sidebar').getBoundingClientRect().left === 0")
                    try page.tap(".gallery-row[data-gallery=\"\(gallery)\"]")
                    try page.waitFor("document.getElementById('gallery-title').textContent === '\(gallery)' && !__state.drawerOpen")
                    try page.settle()
                }
                let counts = try page.evaluate(Self.rowCounts) as? [Int] ?? []
                #expect(counts.count >= 3 && counts.allSatisfy { (3...4).contains($0) }, "\(gallery): tiles a row \(counts)")
                #expect(try page.evaluate("[...document.querySelectorAll('#grid .tile')].every(t => t.getBoundingClientRect().right <= innerWidth)") as? Bool == true,
                        "\(gallery): every tile fits the width")
                #expect(try page.evaluate("getComputedStyle(document.querySelector('#grid .tile .caption')).display") as? String == "none",
                        "no caption under a phone's tiles")
                if gallery == "camera" {
                    try page.waitFor("[...document.querySelectorAll('#grid .tile img')].every(i => i.complete && i.naturalWidth > 0)")
                    try PageLooks.keep(page, as: "phone-grid")
                }
            }
            #expect(try page.evaluate("localStorage.getItem('gallery.zoom') === null") as? Bool == true, "a default is not remembered as a pick")

            // The same page on a desktop: 160 px tiles with their captions, as before.
            try PageLooks.apply(PageLooks.desktop, dark: false, to: page)
            try page.settle()
            #expect(try page.evaluate("L.h") as? Int == 160)
            #expect(try page.evaluate("Math.round(document.querySelector('#grid .tile .frame').getBoundingClientRect().height)") as? Int == 160)
            #expect(try page.evaluate("getComputedStyle(document.querySelector('#grid .tile .caption')).display") as? String != "none")
            #expect(try page.evaluateString("document.getElementById('zoom').value") == "160")
        }
    }

    @Test("Two fingers spreading to twice their distance double the tile size, closing halves it; the pick is kept after a reload")
    func pinch() throws {
        try PageScenario.run("phone-pinch") { scenario in
            let server = try scenario.node("alice", pictures: 30)
            let page = try scenario.open(server)
            try PageLooks.apply(PageLooks.phone, dark: false, to: page)
            try page.settle()
            let before = try #require(try page.evaluate("L.h") as? Int)
            func frameHeight() throws -> Int {
                try page.evaluate("Math.round(document.querySelector('#grid .tile .frame').getBoundingClientRect().height)") as? Int ?? 0
            }
            #expect(try frameHeight() == before)

            try page.pinch(at: page.center(of: "#scroller"), from: 100, to: 200)
            try page.waitFor("L.h === \(before * 2)")
            try page.settle()
            #expect(try frameHeight() == before * 2, "the tiles are twice as tall")
            #expect(try page.evaluate("visualViewport.scale") as? Double ?? 0 == 1, "the browser did not zoom the page itself")
            #expect(try page.evaluateString("localStorage.getItem('gallery.zoom')") == String(before * 2))

            try page.pinch(at: page.center(of: "#scroller"), from: 240, to: 120)
            try page.waitFor("L.h === \(before)")
            try page.settle()
            #expect(try frameHeight() == before, "closing to half the distance halves them")

            try page.pinch(at: page.center(of: "#scroller"), from: 90, to: 180)
            try page.waitFor("L.h === \(before * 2)")
            try page.navigate(to: server.pageURL)
            try page.waitFor("window.__state && __state.ready && __state.connected")
            try page.settle()
            #expect(try page.evaluate("L.h") as? Int == before * 2, "the zoom picked is kept")
            #expect(try frameHeight() == before * 2)
        }
    }
}
