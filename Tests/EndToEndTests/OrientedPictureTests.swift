import Foundation
import GalleryCrypto
import GalleryImaging
import GalleryTestSupport
import Testing

/// EXIF orientation across real `gallery serve` processes: JPEGs stored landscape and tagged 1 to 8
/// (6 and 8 as phones tag portraits, 3 upside down; odd values big-endian), added on bob. Everywhere a size shows, it is the picture as
/// shown: `list --json` on both nodes, the placeholders of a drag, and the thumbnails alice
/// replicated, whose corners hold the colors EXIF puts there.
@Suite("EXIF orientation across nodes", .serialized)
struct OrientedPictureTests {
    let base = FileManager.default.temporaryDirectory.appendingPathComponent("gallery-oriented-\(UUID().uuidString)")

    /// The stored size: landscape, 3:2.
    static let stored = (width: 480, height: 320)
    static let orientations = Array(1...8)

    /// A JPEG of the quadrant picture, stored landscape, tagged `orientation` (odd values big-endian).
    static func taggedJPEG(orientation: Int) -> [UInt8] {
        let pixels = OrientedPictures.quadrants(width: stored.width, height: stored.height)
        let jpeg = JPEGEncoder.encode(RasterImage(width: stored.width, height: stored.height, channels: 3, pixels: pixels), quality: 90)
        return OrientedPictures.tagged(Array(jpeg), orientation: orientation, bigEndian: orientation % 2 == 1)
    }

    /// The aspect ratio shown under `orientation`.
    static func shownAspect(_ orientation: Int) -> Double {
        let shown = OrientedPictures.shownSize(width: stored.width, height: stored.height, orientation: orientation)
        return Double(shown.width) / Double(shown.height)
    }

    /// The aspect ratio of each item of `gallery` on `node`, by title.
    private func aspects(_ gallery: String, on node: WebNode) throws -> [String: Double] {
        Dictionary(try node.items(gallery).map { ($0["title"] as? String ?? "", $0["aspectRatio"] as? Double ?? 0) }) { a, _ in a }
    }

    @Test("JPEGs tagged 1 to 8 added on bob: list --json on alice and bob gives the shown aspect; a drag's placeholders on alice have it; alice's 320 px thumbnails are upright, corners where EXIF puts them")
    func orientationHonoredEverywhere() throws {
        defer { try? FileManager.default.removeItem(at: base) }
        let alice = try WebNode("alice", base: base)
        defer { alice.stop() }
        let listening = try #require(alice.process?.endpoint)
        let bob = try WebNode("bob", base: base, arguments: [
            "--peer", listening.description, "--secret-file", alice.directory.appendingPathComponent("secret").path,
        ])
        defer { bob.stop() }
        var hashes: [Int: String] = [:]
        var files: [String] = []
        for orientation in Self.orientations {
            let bytes = Self.taggedJPEG(orientation: orientation)
            #expect(EXIFReader.orientation(ofJPEG: Data(bytes)).rawValue == orientation)
            let url = base.appendingPathComponent("o\(orientation).jpg")
            try Data(bytes).write(to: url)
            files.append(url.path)
            hashes[orientation] = SHA256.hex(SHA256.hash(bytes))
        }
        let added = try bob.gallery(["add"] + files)
        #expect(added.status == 0, "\(added.stderr)")

        // The 320 px thumbnails reach alice (made on bob, replicated): woken by her folder's events.
        let thumbnails = Self.orientations.map { ThumbnailRouteTests.derivedPath(hashes[$0]!, 320, on: alice) }
        let arrived = FolderEvents.wait(under: alice.directory, timeout: 120) {
            thumbnails.allSatisfy { FileManager.default.fileExists(atPath: $0) }
        }
        #expect(arrived, "alice lacks thumbnails: \(thumbnails.filter { !FileManager.default.fileExists(atPath: $0) })")

        // list --json: the aspect ratio as shown, on the adding node and on the other.
        for node in [bob, alice] {
            let listed = try aspects("bob", on: node)
            for orientation in Self.orientations {
                let aspect = try #require(listed["o\(orientation).jpg"], "\(node.name) does not list o\(orientation).jpg: \(listed)")
                #expect(abs(aspect - Self.shownAspect(orientation)) < 1e-9, "\(node.name), orientation \(orientation): \(aspect)")
            }
        }

        // The thumbnails as the page gets them, decoded by the package's decoder: upright.
        for orientation in Self.orientations {
            let reply = try alice.get("/thumbnails/\(hashes[orientation]!)/320")
            #expect(reply.status == 200, "\(reply.text.prefix(200))")
            let image = try JPEGDecoder.decode(Data(reply.body))
            let shown = OrientedPictures.shownSize(width: Self.stored.width, height: Self.stored.height, orientation: orientation)
            #expect(max(image.width, image.height) == 320)
            #expect((image.width < image.height) == (shown.width < shown.height), "orientation \(orientation): \(image.width)x\(image.height)")
            let corners = OrientedPictures.corners(image.pixels, width: image.width, height: image.height, channels: image.channels)
            #expect(corners == OrientedPictures.shownCorners(orientation: orientation), "orientation \(orientation): \(corners)")
        }

        // A drag to alice while bob, the only holder, is down: the placeholders wait, with the shown aspect.
        bob.stop()
        let drag = try alice.gallery(["drag"] + (0..<Self.orientations.count).map { "bob:\($0)" } + ["--to", "alice", "--timeout", "120"])
        #expect(drag.status == 0, "\(drag.stdout) \(drag.stderr)")
        let placeholders = try alice.items("alice")
        #expect(placeholders.count == Self.orientations.count && placeholders.allSatisfy { $0["state"] as? String == "placeholder" },
                "\(placeholders)")
        let dropped = try aspects("alice", on: alice)
        for orientation in Self.orientations {
            let aspect = try #require(dropped["o\(orientation).jpg"], "no placeholder of o\(orientation).jpg: \(dropped)")
            #expect(abs(aspect - Self.shownAspect(orientation)) < 1e-9, "placeholder, orientation \(orientation): \(aspect)")
        }
        // bob back: the transfers commit, the aspect kept.
        try bob.start()
        let committed = waitUntil { ((try? alice.items("alice")) ?? []).allSatisfy { $0["state"] as? String == "ready" } }
        let states = try alice.items("alice").map { $0["state"] as? String ?? "" }
        #expect(committed, "\(states)")
        #expect(try aspects("alice", on: alice) == dropped)
    }

    private func waitUntil(timeout: TimeInterval = 60, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if condition() { return true }
            usleep(50_000)
        }
        return condition()
    }
}
