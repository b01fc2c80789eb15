import Foundation
import GallerySimulation

/// Small image files for `add FILE`: a PNG signature and header (the node reads only the header)
/// followed by seeded bytes, so that each file has its own content hash.
enum ImageFiles {
    /// Writes `count` files named `image-N.png` into `directory` and returns their paths.
    static func make(in directory: URL, count: Int, seed: UInt64) throws -> [String] {
        var random = SeededGenerator(seed: seed)
        return try (0..<count).map { index in
            let width = UInt8(16 + index), height = UInt8(9 + index)
            var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + Array("IHDR".utf8)
                + [0, 0, 0, width, 0, 0, 0, height, 8, 2, 0, 0, 0, 0, 0, 0, 0]
            png += (0..<2_000).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            let file = directory.appendingPathComponent("image-\(index).png")
            try Data(png).write(to: file)
            return file.path
        }
    }
}
