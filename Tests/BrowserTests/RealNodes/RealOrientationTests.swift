import Foundation
import GalleryImaging
import GalleryTestSupport
import Testing

/// EXIF orientation on a real node's page: JPEGs stored landscape and tagged as a phone tags a
/// portrait photo, added on bob, show on alice's page (`gallery serve --http`, headless Chromium)
/// in tiles of the shown aspect ratio, with upright thumbnails.
@Suite("Gallery pages on real nodes: EXIF orientation", .serialized,
       .enabled(if: BrowserBinary.testsEnabled, "needs Chromium (see README set-up)"))
struct RealOrientationTests {
    /// A JPEG of the quadrant picture stored 480x320, tagged `orientation`.
    static func taggedJPEG(orientation: Int) -> [UInt8] {
        let pixels = OrientedPictures.quadrants(width: 480, height: 320)
        let jpeg = JPEGEncoder.encode(RasterImage(width: 480, height: 320, channels: 3, pixels: pixels), quality: 90)
        return OrientedPictures.tagged(Array(jpeg), orientation: orientation, bigEndian: orientation % 2 == 1)
    }

    @Test("JPEGs tagged 6, 8 and 1 added on bob: on alice's page each tile has the shown aspect ratio (2:3 for 6 and 8, 3:2 for 1) and its thumbnail, as Chromium paints it, has the corners EXIF puts there")
    func tilesHaveTheShownAspect() throws {
        try RealSpace.run("real-orientation") { space in
            let alice = try space.node("alice")
            let bob = try space.node("bob", peers: [alice])
            let orientations = [6, 8, 1]
            let pictures = orientations.map { Self.taggedJPEG(orientation: $0) }
            let hashes = pictures.map(RealNodeLiveTests.sha256)
            try bob.gallery(["add"] + pictures.enumerated().map { try space.file("o\(orientations[$0.offset]).jpg", $0.element) })
            let thumbnails = hashes.map { RealOfflineSourceTests.thumbnailPath($0, 320, on: alice) }
            let arrived = FolderEvents.wait(under: alice.directory, timeout: 120) {
                thumbnails.allSatisfy { FileManager.default.fileExists(atPath: $0) }
            }
            try #require(arrived, "alice lacks thumbnails")
            let listed = try alice.items("bob").map { $0["aspectRatio"] as? Double ?? 0 }
            let shown = orientations.map { OrientedPictures.shownSize(width: 480, height: 320, orientation: $0) }
            let aspects = shown.map { Double($0.width) / Double($0.height) }
            #expect(listed.count == 3 && zip(listed, aspects).allSatisfy { abs($0 - $1) < 1e-9 }, "\(listed)")

            let page = try space.open(alice, newWindow: false)
            try page.click(".gallery-row[data-gallery=bob]")
            for index in 0..<3 { try page.waitFor(RealCrossNodeTests.showsImage(hashes[index], at: index), timeout: .seconds(20)) }
            for (index, orientation) in orientations.enumerated() {
                let tile = "document.querySelectorAll('#grid .tile')[\(index)]"
                let frame = try #require(page.evaluate(
                    "(() => { const r = \(tile).querySelector('.frame').getBoundingClientRect(); return [r.width, r.height]; })()") as? [Double])
                // The tile is as wide as its height times the aspect ratio, rounded to a pixel.
                #expect(abs(frame[0] - frame[1] * aspects[index]) <= 1, "orientation \(orientation): frame \(frame)")
                let natural = try #require(page.evaluate(
                    "(() => { const i = \(tile).querySelector('img'); return [i.naturalWidth, i.naturalHeight]; })()") as? [Int])
                #expect(natural == [shown[index].width * 320 / 480, shown[index].height * 320 / 480], "orientation \(orientation): \(natural)")
                // The thumbnail's corners as Chromium decodes it, 4 pixels in: "RGB" bits, as `OrientedPictures.corners`.
                let corners = try page.evaluate("""
                    (() => { const i = \(tile).querySelector('img'); const c = document.createElement('canvas');
                      const w = c.width = i.naturalWidth, h = c.height = i.naturalHeight; const g = c.getContext('2d'); g.drawImage(i, 0, 0);
                      return [[4, 4], [w - 5, 4], [4, h - 5], [w - 5, h - 5]].map(([x, y]) =>
                        Array.from(g.getImageData(x, y, 1, 1).data.slice(0, 3)).map(v => v > 128 ? '1' : '0').join('')); })()
                    """) as? [String]
                #expect(corners == OrientedPictures.shownCorners(orientation: orientation), "orientation \(orientation): \(corners ?? [])")
            }
            GalleryViewerTests.keep(page, "real-orientation")
        }
    }
}
