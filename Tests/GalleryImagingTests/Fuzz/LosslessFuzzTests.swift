import GalleryCrypto
import Foundation
import Testing
@testable import GalleryImaging

/// Seeded mutations of real files: every result is an image within the limits or an `ImageError`;
/// a trap would kill the test process and a hang would blow the time bound.
@Suite struct LosslessFuzzTests {
    /// Tight bounds, so that a mutated header claiming a large image is refused rather than decoded.
    static let limits = ImageLimits(maxDecodedPixels: 1 << 16, maxWorkingBytes: 4 << 20)

    @Test func mutatedPNGsDecodeOrFail() throws {
        let seeds = ["rgba8-level6-idats.png", "palette4-trns-i.png", "gray16-trns-i.png", "rgb16-trns.png",
                     "gray1-i-9x17.png", "rgb8-gradient-i.png", "palette8-outofrange-trns.png", "grayalpha8-i.png"]
        let files = try seeds.map { [UInt8](try LosslessFixtures.data("PNG", $0)) }
        var random = SplitMix64(seed: 0x5EED_0001)
        var outcomes = [String: Int]()
        let clock = ContinuousClock()
        let elapsed = clock.measure {
            for round in 0..<2400 {
                var bytes = Self.mutate(files[round % files.count], &random)
                // Half the time repair the CRCs, so the mutation reaches IHDR's checks, inflate and the filters.
                if random.next() & 1 == 0 { Self.repairCRCs(&bytes) }
                do {
                    let image = try PNGDecoder.decode(Data(bytes), limits: Self.limits)
                    #expect(image.width * image.height <= Self.limits.maxDecodedPixels)
                    outcomes["image", default: 0] += 1
                } catch {
                    outcomes[Self.kind(error), default: 0] += 1
                }
            }
        }
        #expect(elapsed < .seconds(60), "\(elapsed)")
        // The mutations must reach past the CRC check, or the fuzz proves little.
        // Most edits break the zlib stream (20 of 2400 decode with this seed); the next test fuzzes past it.
        #expect(outcomes["image", default: 0] > 10, "\(outcomes)")
        #expect(outcomes.count >= 3, "\(outcomes)")
    }

    /// Mutates the inflated scanlines and IHDR's fields instead, then stores them again (stored deflate
    /// blocks, right Adler-32 and CRCs): this reaches the filters, bit depths, palettes and Adam7 with
    /// hostile bytes that a valid zlib stream carries.
    @Test func mutatedScanlinesAndHeadersDecodeOrFail() throws {
        let seeds = ["palette2-trns-i.png", "gray4-i-9x17.png", "rgb16-trns-i.png", "grayalpha16.png", "rgba8-level9-idats.png"]
        var random = SplitMix64(seed: 0x5EED_0004)
        var outcomes = [String: Int]()
        let parts = try seeds.map { name -> (header: [UInt8], plte: [UInt8], trns: [UInt8], scanlines: [UInt8]) in
            let bytes = [UInt8](try LosslessFixtures.data("PNG", name))
            var header: [UInt8] = [], plte: [UInt8] = [], trns: [UInt8] = [], idat: [UInt8] = []
            var offset = 8
            while offset + 12 <= bytes.count {
                let length = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
                let type = String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self)
                let data = Array(bytes[offset + 8..<offset + 8 + length])
                switch type {
                case "IHDR": header = data
                case "PLTE": plte = data
                case "tRNS": trns = data
                case "IDAT": idat += data
                default: break
                }
                offset += 12 + length
            }
            return (header, plte, trns, try ZlibDecoder.decompress(idat, maxOutputBytes: 1 << 20))
        }
        for round in 0..<1500 {
            var (header, plte, trns, scanlines) = parts[round % parts.count]
            switch random.below(4) {
            case 0: header[8 + random.below(5)] = [0, 1, 2, 3, 4, 6, 8, 16][random.below(8)]  // depth, type, methods
            case 1: header[3 - random.below(2)] ^= UInt8(1 << random.below(8))                  // width
            case 2: trns = Array(trns.prefix(random.below(8))); plte = Array(plte.prefix(3 * random.below(6)))
            default: break
            }
            scanlines = Self.mutate(scanlines, &random)
            var file: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + pngChunk("IHDR", header)
            if !plte.isEmpty { file += pngChunk("PLTE", plte) }
            if !trns.isEmpty { file += pngChunk("tRNS", trns) }
            file += pngChunk("IDAT", Self.storedZlib(scanlines)) + pngChunk("IEND", [])
            do {
                let image = try PNGDecoder.decode(Data(file), limits: Self.limits)
                #expect(image.width * image.height <= Self.limits.maxDecodedPixels)
                outcomes["image", default: 0] += 1
            } catch {
                outcomes[Self.kind(error), default: 0] += 1
            }
        }
        #expect(outcomes["image", default: 0] > 100, "\(outcomes)")
    }

    /// `bytes` as a zlib stream of stored blocks.
    static func storedZlib(_ bytes: [UInt8]) -> [UInt8] {
        var deflate: [UInt8] = []
        var start = 0
        repeat {
            let count = min(65535, bytes.count - start)
            let final: UInt8 = start + count == bytes.count ? 1 : 0
            deflate += [final, UInt8(count & 0xFF), UInt8(count >> 8), ~UInt8(count & 0xFF), ~UInt8(count >> 8)]
            deflate += bytes[start..<start + count]
            start += count
        } while start < bytes.count
        return DeflateBitWriter.zlib(deflate, adlerOf: bytes)
    }

    @Test func mutatedGIFsDecodeOrFail() throws {
        let seeds = ["global256-i.gif", "early-clears.gif", "transparent-i.gif", "animated.gif", "wide-codes.gif",
                     "extensions.gif", "offset-frame.gif", "large-smooth.gif"]
        let files = try seeds.map { [UInt8](try LosslessFixtures.data("GIF", $0)) }
        var random = SplitMix64(seed: 0x5EED_0002)
        var outcomes = [String: Int]()
        let elapsed = ContinuousClock().measure {
            for round in 0..<2400 {
                let bytes = Self.mutate(files[round % files.count], &random)
                do {
                    let image = try GIFDecoder.decodeFirstFrame(Data(bytes), limits: Self.limits)
                    #expect(image.width * image.height <= Self.limits.maxDecodedPixels)
                    outcomes["image", default: 0] += 1
                } catch {
                    outcomes[Self.kind(error), default: 0] += 1
                }
            }
        }
        #expect(elapsed < .seconds(60), "\(elapsed)")
        #expect(outcomes["image", default: 0] > 50, "\(outcomes)")
        #expect(outcomes.count >= 3, "\(outcomes)")
    }

    @Test func mutatedDeflateStreamsDecodeOrFail() throws {
        let files = try ["level1.zlib", "level9.zlib", "fixed.zlib", "rle.zlib", "level0.zlib"].map {
            [UInt8](try LosslessFixtures.data("Zlib", $0))
        }
        var random = SplitMix64(seed: 0x5EED_0003)
        let elapsed = ContinuousClock().measure {
            for round in 0..<1500 {
                let bytes = Self.mutate(files[round % files.count], &random)
                // Raw inflate, skipping the zlib header, so mutations are not all caught by the Adler-32.
                let body = Array(bytes.dropFirst(2))
                if let output = try? body.withUnsafeBytes({ try Inflater.inflate($0, maxOutputBytes: 1 << 17).output }) {
                    #expect(output.count <= 1 << 17)
                }
                _ = try? ZlibDecoder.decompress(bytes, maxOutputBytes: 1 << 17)
            }
        }
        #expect(elapsed < .seconds(60), "\(elapsed)")
    }

    /// The case name of an `ImageError`; anything else is a test failure.
    static func kind(_ error: any Error) -> String {
        guard let error = error as? ImageError else {
            Issue.record("not an ImageError: \(error)")
            return "other"
        }
        switch error {
        case .unrecognizedFormat: return "unrecognized"
        case .truncated: return "truncated"
        case .malformed: return "malformed"
        case .unsupported: return "unsupported"
        case .tooLarge: return "tooLarge"
        }
    }

    /// One to four random edits: bit flips, random bytes, interesting values, cuts, deletions,
    /// insertions and duplicated ranges.
    static func mutate(_ original: [UInt8], _ random: inout SplitMix64) -> [UInt8] {
        var bytes = original
        for _ in 0...random.below(4) {
            guard !bytes.isEmpty else { break }
            let at = random.below(bytes.count)
            switch random.below(7) {
            case 0: bytes[at] ^= UInt8(1 << random.below(8))
            case 1: bytes[at] = UInt8(truncatingIfNeeded: random.next())
            case 2: bytes[at] = [0, 0xFF, 0x7F, 0x80, 1][random.below(5)]
            case 3: bytes.removeSubrange(at...)
            case 4: bytes.removeSubrange(at..<min(bytes.count, at + 1 + random.below(16)))
            case 5: bytes.insert(contentsOf: (0..<1 + random.below(8)).map { _ in UInt8(truncatingIfNeeded: random.next()) }, at: at)
            default:
                let length = min(bytes.count - at, 1 + random.below(64))
                bytes.insert(contentsOf: bytes[at..<at + length], at: random.below(bytes.count))
            }
        }
        return bytes
    }

    /// Rewrites each chunk's CRC to match, walking the chunks as far as their lengths allow.
    static func repairCRCs(_ bytes: inout [UInt8]) {
        var offset = 8
        while offset + 12 <= bytes.count {
            let length = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            guard length <= bytes.count - offset - 12 else { return }
            let crc = bytes[offset + 4..<offset + 8 + length].withUnsafeBytes { CRC32.checksum(of: $0) }
            bytes.replaceSubrange(offset + 8 + length..<offset + 12 + length, with: bigEndian(crc))
            offset += 12 + length
        }
    }
}

/// A small seeded generator (SplitMix64), so every run mutates the same way.
struct SplitMix64 {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A value in 0..<bound.
    mutating func below(_ bound: Int) -> Int {
        Int(next() % UInt64(bound))
    }
}
