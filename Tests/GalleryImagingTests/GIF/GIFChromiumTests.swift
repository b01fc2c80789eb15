import Foundation
import GalleryTestSupport
import Testing
@testable import GalleryImaging

/// Every GIF fixture's first frame decodes to exactly the RGBA Chromium shows for it.
@Suite("GIF decodes match Chromium", .serialized, .enabled(if: BrowserBinary.testsEnabled, "needs Chromium (see README set-up)"))
struct GIFChromiumTests {
    @Test func everyFixtureMatchesChromiumExactly() throws {
        let reference = try ChromiumImageReference.launch()
        defer { reference.close() }
        let names = try LosslessFixtures.names("GIF", suffix: "gif")
        #expect(names.count > 25)
        for name in names {
            let data = try LosslessFixtures.data("GIF", name)
            let ours = try GIFDecoder.decodeFirstFrame(data, limits: .standard)
            let theirs = try reference.decode(data)
            #expect(ours.width == theirs.width && ours.height == theirs.height, "\(name): \(ours.width)x\(ours.height)")
            let mismatch = zip(ours.pixels, theirs.rgba).enumerated().first { $0.element.0 != $0.element.1 }
            #expect(ours.pixels == theirs.rgba,
                    "\(name): first difference at byte \(mismatch?.offset ?? -1): ours \(String(describing: mismatch?.element.0)), Chromium's \(String(describing: mismatch?.element.1))")
        }
    }
}
