import Foundation
import GalleryTestSupport
import Testing

@Suite("Chromium image reference", .serialized, .enabled(if: BrowserBinary.testsEnabled, "needs Chromium (see README set-up)"))
struct ChromiumImageReferenceTests {
    /// A 2x3 RGBA PNG (made with Python's zlib): rows top-down, alphas 1..255, so premultiplication
    /// or a flipped read-back would show.
    static let smallPNG = Data(base64Encoded:
        "iVBORw0KGgoAAAANSUhEUgAAAAIAAAADCAYAAAC56t6BAAAAIUlEQVR4nGP4z8DwHwgbGIA044kUI0YGRiZmll+///wFAHlmCdWLNiQuAAAAAElFTkSuQmCC")!

    @Test func decodesExactUnpremultipliedTopDownPixels() throws {
        let reference = try ChromiumImageReference.launch()
        defer { reference.close() }
        let image = try reference.decode(Self.smallPNG)
        #expect(image.width == 2 && image.height == 3)
        #expect(image.rgba == [255, 0, 0, 255, 0, 255, 0, 128,
                               0, 0, 255, 1, 200, 100, 50, 1,
                               1, 2, 3, 4, 250, 251, 252, 253])
        // A second call reuses the tab's WebGL state.
        #expect(try reference.decode(Self.smallPNG) == image)
    }

    @Test func tellsARefusalFromAFailure() throws {
        let reference = try ChromiumImageReference.launch()
        defer { reference.close() }
        let outcome = try reference.outcome(of: Data("not an image".utf8))
        guard case .rejected(let reason) = outcome else {
            Issue.record("garbage decoded: \(outcome)")
            return
        }
        #expect(!reason.isEmpty)
    }
}
