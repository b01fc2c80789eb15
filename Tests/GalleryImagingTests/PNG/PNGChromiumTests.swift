import Foundation
import GalleryTestSupport
import Testing
@testable import GalleryImaging

/// Every PNG fixture decodes to exactly the RGBA Chromium decodes (colour profiles ignored; the
/// fixtures carry none, see Fixtures/PNG/make_png_fixtures.py).
@Suite("PNG decodes match Chromium", .serialized, .enabled(if: BrowserBinary.testsEnabled, "needs Chromium (see README set-up)"))
struct PNGChromiumTests {
    @Test func everyFixtureMatchesChromiumExactly() throws {
        let reference = try ChromiumImageReference.launch()
        defer { reference.close() }
        let names = try LosslessFixtures.names("PNG", suffix: "png")
        #expect(names.count > 100)
        for name in names {
            let data = try LosslessFixtures.data("PNG", name)
            let ours = try PNGDecoder.decode(data, limits: .standard)
            let theirs = try reference.decode(data)
            #expect(ours.width == theirs.width && ours.height == theirs.height, "\(name)")
            let mismatch = zip(ours.rgbaPixels, theirs.rgba).enumerated().first { $0.element.0 != $0.element.1 }
            #expect(ours.rgbaPixels == theirs.rgba,
                    "\(name): first difference at byte \(mismatch?.offset ?? -1): ours \(String(describing: mismatch?.element.0)), Chromium's \(String(describing: mismatch?.element.1))")
        }
    }
}
