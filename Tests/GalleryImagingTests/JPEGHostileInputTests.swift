import Foundation
import Testing
@testable import GalleryImaging

/// Damaged and hostile JPEGs end in an `ImageError`, never a trap, a hang or a huge allocation.
@Suite struct JPEGHostileInputTests {
    /// SplitMix64: a seeded generator, so a failing mutation can be replayed.
    struct SeededGenerator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// Replaces the first SOF's size with `width` x `height`.
    static func withFrameSize(_ data: Data, width: Int, height: Int) -> Data {
        var bytes = [UInt8](data)
        for i in 0..<(bytes.count - 8) where bytes[i] == 0xFF && (bytes[i + 1] == 0xC0 || bytes[i + 1] == 0xC2) {
            bytes[i + 5] = UInt8(height >> 8); bytes[i + 6] = UInt8(height & 0xFF)
            bytes[i + 7] = UInt8(width >> 8); bytes[i + 8] = UInt8(width & 0xFF)
            break
        }
        return Data(bytes)
    }

    @Test func absurdAndZeroSizesAreRefusedBeforeAllocating() throws {
        let data = try ImageFixtures.data("baseline-420.jpg")
        #expect(throws: ImageError.self) { try JPEGDecoder.decode(Self.withFrameSize(data, width: 65535, height: 65535)) }
        // 1/8 of 65535x65535 fits the pixel limit, but not a small working-memory limit.
        let tight = ImageLimits(maxDecodedPixels: 64 << 20, maxWorkingBytes: 1 << 20)
        #expect(throws: ImageError.self) { try JPEGDecoder.decode(Self.withFrameSize(data, width: 65535, height: 65535), scaleDenominator: 8, limits: tight) }
        #expect(throws: ImageError.self) { try JPEGDecoder.decode(Self.withFrameSize(data, width: 0, height: 197)) }
        #expect(throws: ImageError.self) { try JPEGDecoder.decode(Self.withFrameSize(data, width: 263, height: 0)) }
        // Larger than the data: the scan runs out, which is an error, not a gray picture.
        #expect(throws: ImageError.self) { try JPEGDecoder.decode(Self.withFrameSize(data, width: 4000, height: 3000), scaleDenominator: 8) }
    }

    @Test func overSubscribedHuffmanTablesAreRefused() {
        // Three codes of length 1 cannot exist.
        var counts = [Int](repeating: 0, count: 16)
        counts[0] = 3
        #expect(throws: ImageError.self) { try JPEGHuffmanTable(counts: counts, symbols: [1, 2, 3]) }
        counts = [Int](repeating: 0, count: 16)
        counts[15] = 200
        counts[1] = 4
        #expect(throws: ImageError.self) { try JPEGHuffmanTable(counts: counts, symbols: [UInt8](repeating: 0, count: 204)) }
        #expect(throws: ImageError.self) { try JPEGHuffmanTable(counts: counts, symbols: [1]) }
    }

    @Test func truncationsAndNonJPEGsAreErrors() throws {
        for name in ["baseline-420.jpg", "progressive-420.jpg", "baseline-restart.jpg", "gray.jpg"] {
            let data = try ImageFixtures.data(name)
            for length in [0, 1, 2, 3, 4, 20, 100, 300, data.count / 2, data.count * 3 / 4] {
                #expect(throws: ImageError.self) { try JPEGDecoder.decode(data.prefix(length)) }
            }
        }
        #expect(throws: ImageError.unrecognizedFormat) { try JPEGDecoder.decode(Data("GIF89a".utf8)) }
        #expect(throws: ImageError.self) { try JPEGDecoder.decode(Data([0xFF, 0xD8, 0xFF, 0xD9])) }
    }

    /// Seeded mutations of real files at every scale: each decode is an image or an ImageError.
    @Test func mutatedFilesNeverTrap() throws {
        var generator = SeededGenerator(state: 0x6A70_6567)
        let names = ImageFixtures.colorJPEGs + ImageFixtures.grayJPEGs + ["orientation-6.jpg"]
        let files = try names.map { [UInt8](try ImageFixtures.data($0)) }
        let deadline = ContinuousClock.now + .seconds(40)
        var decoded = 0, refused = 0
        for round in 0..<3000 {
            if ContinuousClock.now > deadline { break }
            var bytes = files[round % files.count]
            switch Int.random(in: 0..<5, using: &generator) {
            case 0: // flip a few bytes anywhere
                for _ in 0..<Int.random(in: 1...8, using: &generator) {
                    bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
                }
            case 1: // damage the headers, where lengths and tables are
                for _ in 0..<Int.random(in: 1...4, using: &generator) {
                    bytes[Int.random(in: 0..<min(bytes.count, 700), using: &generator)] = UInt8.random(in: 0...255, using: &generator)
                }
            case 2: // truncate
                bytes = Array(bytes.prefix(Int.random(in: 0..<bytes.count, using: &generator)))
            case 3: // insert garbage
                let at = Int.random(in: 0..<bytes.count, using: &generator)
                bytes.insert(contentsOf: (0..<Int.random(in: 1...64, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }, at: at)
            default: // drop a run of bytes
                let at = Int.random(in: 0..<bytes.count, using: &generator)
                bytes.removeSubrange(at..<min(bytes.count, at + Int.random(in: 1...200, using: &generator)))
            }
            let scale = [1, 2, 4, 8][round % 4]
            do {
                let image = try JPEGDecoder.decode(Data(bytes), scaleDenominator: scale, limits: ImageLimits(maxDecodedPixels: 4 << 20, maxWorkingBytes: 32 << 20))
                #expect(image.pixels.count == image.width * image.height * image.channels)
                decoded += 1
            } catch {
                refused += 1
            }
            _ = try? ImageProbe.dimensions(of: Data(bytes))
            _ = EXIFReader.orientation(ofJPEG: Data(bytes))
        }
        print("fuzz: \(decoded) decoded, \(refused) refused")
        #expect(decoded + refused > 500)
    }
}
