import Foundation
import GalleryImaging
import GalleryTestSupport

/// Two real nodes for `gallery-bench viewer`: alice adds N generated photos (JPEGs, 6000x4000 by default), bob
/// dials alice and syncs the gallery and its thumbnails (replicated eagerly), but none of the
/// originals: each is fetched from alice when bob's page asks for it.
final class ViewerBenchNodes {
    let alice: WebBenchNodes.Node
    let bob: WebBenchNodes.Node
    /// The photos' sizes in bytes, in the order added.
    let photoBytes: [Int]
    /// The photos' width and height.
    let pixels: (width: Int, height: Int)

    init(root: URL, photos: Int, pixels: (width: Int, height: Int), log: (String) -> Void) throws {
        self.pixels = pixels
        let folder = root.appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        // Three generated photos (a 24 MP picture costs seconds to make), each written many times
        // with a numbered JPEG comment, so that every file is a distinct picture to the nodes.
        // Film grain (independent per channel) makes them as large as a camera's: about 8 MB at 24 MP.
        let bases = (0..<min(photos, 3)).map { index in
            var photo = ThumbsBenchmark.syntheticPhoto(width: pixels.width, height: pixels.height, seed: UInt64(index + 11))
            var state = UInt64(index + 1) &* 0x2545_F491_4F6C_DD1D
            photo.pixels.withUnsafeMutableBufferPointer { bytes in
                for at in bytes.indices {
                    state ^= state << 13; state ^= state >> 7; state ^= state << 17
                    bytes[at] = UInt8(clamping: Int(bytes[at]) + Int(state % 29) - 14)
                }
            }
            return JPEGEncoder.encode(photo, quality: 90)
        }
        var paths: [String] = [], sizes: [Int] = []
        for index in 0..<photos {
            let data = Self.numbered(bases[index % bases.count], index)
            let path = folder.appendingPathComponent(String(format: "photo-%03d.jpg", index)).path
            guard FileManager.default.createFile(atPath: path, contents: data) else { throw BenchFailure.failed("viewer: cannot write \(path)") }
            paths.append(path)
            sizes.append(data.count)
        }
        photoBytes = sizes
        log("viewer: \(photos) photos written, \(sizes.reduce(0, +) / photos) bytes each on average")

        let directoryA = root.appendingPathComponent("alice")
        alice = try WebBenchNodes.Node(["--name", "alice"], directory: directoryA)
        do {
            for start in stride(from: 0, to: photos, by: 50) {
                let result = try GalleryProcess.run(["-C", directoryA.path, "add"] + paths[start..<min(photos, start + 50)], timeout: 600)
                guard result.ok else { throw BenchFailure.failed("viewer: gallery add: \(result.stderr)") }
            }
            try? FileManager.default.removeItem(at: folder)
            guard let endpoint = alice.process.endpoint else { throw BenchFailure.failed("viewer: alice has no peer address") }
            let directoryB = root.appendingPathComponent("bob")
            bob = try WebBenchNodes.Node(["--name", "bob", "--secret-file", directoryA.appendingPathComponent("secret").path,
                                          "--peer", endpoint.description], directory: directoryB)
        } catch {
            alice.process.stop()
            throw error
        }
        let started = ContinuousClock.now
        let deadline = started + .seconds(1800)
        while thumbnails(on: bob.directory) < 2 * photos {
            guard ContinuousClock.now < deadline else {
                stop()
                throw BenchFailure.failed("viewer: bob has \(thumbnails(on: bob.directory)) of \(2 * photos) thumbnails after 30 min")
            }
            usleep(500_000)
        }
        log("viewer: bob holds every thumbnail, \(Int(Stopwatch.seconds(started.duration(to: .now)))) s after he started")
    }

    /// `jpeg` with a comment segment (`FF FE`) naming `index` right after its SOI marker.
    static func numbered(_ jpeg: Data, _ index: Int) -> Data {
        let text = Array("gallery-bench photo \(index)".utf8)
        let length = text.count + 2
        var data = Data(jpeg.prefix(2))
        data.append(contentsOf: [0xFF, 0xFE, UInt8(length >> 8), UInt8(length & 0xFF)] + text)
        data.append(jpeg.dropFirst(2))
        return data
    }

    /// The thumbnails stored under `DIR/blobs/derived/`.
    func thumbnails(on directory: URL) -> Int {
        let derived = directory.appendingPathComponent("blobs/derived")
        guard let fans = try? FileManager.default.contentsOfDirectory(atPath: derived.path) else { return 0 }
        var count = 0
        for fan in fans where fan != "tmp" {
            count += ((try? FileManager.default.contentsOfDirectory(atPath: derived.appendingPathComponent(fan).path)) ?? [])
                .filter { $0.hasSuffix(".jpg") }.count
        }
        return count
    }

    /// The originals bob holds (`DIR/blobs/ab/HASH`).
    func originalsOnBob() -> Int {
        let blobs = bob.directory.appendingPathComponent("blobs")
        guard let fans = try? FileManager.default.contentsOfDirectory(atPath: blobs.path) else { return 0 }
        return fans.filter { $0.count == 2 }.reduce(0) {
            $0 + ((try? FileManager.default.contentsOfDirectory(atPath: blobs.appendingPathComponent($1).path)) ?? []).count
        }
    }

    func stop() {
        bob.process.stop()
        alice.process.stop()
    }
}
