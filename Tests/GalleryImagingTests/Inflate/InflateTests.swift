import Foundation
import Testing
@testable import GalleryImaging

@Suite struct InflateTests {
    static let zlibFixtures = ["level0", "level1", "level2", "level3", "level4", "level5", "level6", "level7", "level8",
                               "level9", "huffman-only", "rle", "fixed", "window512"]

    @Test(arguments: zlibFixtures)
    func decodesPythonZlibStreams(_ name: String) throws {
        let payload = [UInt8](try LosslessFixtures.data("Zlib", "payload.bin"))
        let stream = [UInt8](try LosslessFixtures.data("Zlib", name + ".zlib"))
        #expect(try ZlibDecoder.decompress(stream, maxOutputBytes: 1 << 20) == payload)
        // A known size is only the first allocation; an unknown one grows from a small buffer.
        #expect(try ZlibDecoder.decompress(stream, expectedBytes: payload.count, maxOutputBytes: payload.count) == payload)
        #expect(try ZlibDecoder.decompress(stream, expectedBytes: 10, maxOutputBytes: 1 << 20) == payload)
    }

    @Test func anExactSizeIsEnforcedBothWays() throws {
        let payload = [UInt8](try LosslessFixtures.data("Zlib", "payload.bin"))
        let stream = [UInt8](try LosslessFixtures.data("Zlib", "level9.zlib"))
        #expect(try ZlibDecoder.decompress(stream, exactly: payload.count) == payload)
        #expect(throws: ImageError.tooLarge("inflated data passes its bound of \(payload.count - 1) bytes")) {
            _ = try ZlibDecoder.decompress(stream, exactly: payload.count - 1)
        }
        #expect(throws: ImageError.truncated("inflated \(payload.count) of \(payload.count + 1) bytes")) {
            _ = try ZlibDecoder.decompress(stream, exactly: payload.count + 1)
        }
        #expect(try ZlibDecoder.decompress(LosslessFixtures.hex("78 9c 3 0 0 0 0 1"), exactly: 0) == [])
    }

    @Test func rawDeflateReportsTheBytesItUsed() throws {
        let payload = [UInt8](try LosslessFixtures.data("Zlib", "payload.bin"))
        let stream = [UInt8](try LosslessFixtures.data("Zlib", "raw.deflate")) + [0xAA, 0xBB]
        let (output, consumed) = try stream.withUnsafeBytes { bytes in
            try Inflater.inflate(bytes, maxOutputBytes: 1 << 20)
        }
        #expect(output == payload)
        #expect(consumed == stream.count - 2)
    }

    /// Valid raw streams from zlib's test/infcover.c, with what Python's zlib makes of them.
    @Test(arguments: [
        ("3 0", 0, UInt32(1)),
        ("1 1 0 fe ff 0", 1, 0x0001_0001),
        ("5 c0 21 d 0 0 0 80 b0 fe 6d 2f 91 6c", 0, 1),
        ("5 e0 81 91 24 cb b2 2c 49 e2 f 2e 8b 9a 47 56 9f fb fe ec d2 ff 1f", 0, 1),
        ("ed c0 1 1 0 0 0 40 20 ff 57 1b 42 2c 4f", 516, 0x0204_0001),
        ("ed cf c1 b1 2c 47 10 c4 30 fa 6f 35 1d 1 82 59 3d fb be 2e 2a fc f c", 518, 0x0206_0001),
        ("ed c0 81 0 0 0 0 80 a0 fd a9 17 a9 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 6",
         33025, 0x8101_0001),
        ("2 8 20 80 0 3 0", 0, 1),
        ("63 0 3 0 0 0 0 0", 6, 0x0006_0001),
    ])
    func decodesZlibCoverageVectors(_ hex: String, _ count: Int, _ adler: UInt32) throws {
        let input = LosslessFixtures.hex(hex)
        let output = try input.withUnsafeBytes { try Inflater.inflate($0, maxOutputBytes: 1 << 20).output }
        #expect(output.count == count)
        #expect(output.withUnsafeBytes { Adler32.checksum($0) } == adler)
    }

    /// Invalid raw streams from zlib's test/infcover.c, each named by zlib's message.
    @Test(arguments: [
        ("0 0 0 0 0", "invalid stored block lengths"),
        ("6", "invalid block type"),
        ("fc 0 0", "too many length or distance symbols"),
        ("4 0 fe ff", "invalid code lengths set"),
        ("4 0 24 49 0", "invalid bit length repeat"),
        ("4 0 24 e9 ff ff", "invalid bit length repeat"),
        ("4 0 24 e9 ff 6d", "invalid code -- missing end-of-block"),
        ("4 80 49 92 24 49 92 24 71 ff ff 93 11 0", "invalid literal/lengths set"),
        ("4 80 49 92 24 49 92 24 f b4 ff ff c3 84", "invalid distances set"),
        ("4 c0 81 8 0 0 0 0 20 7f eb b 0 0", "invalid literal/length code"),
        ("2 7e ff ff", "invalid distance code"),
        ("c c0 81 0 0 0 0 0 90 ff 6b 4 0", "invalid distance too far back"),
        ("3 7e 0 0 0 0 0", "fast invalid distance code"),
        ("1b 7 0 0 0 0 0", "fast invalid literal/length code"),
        ("d c7 1 ae eb 38 c 4 41 a0 87 72 de df fb 1f b8 36 b1 38 5d ff ff 0 0 0 0", "too far back"),
    ])
    func rejectsZlibCoverageVectors(_ hex: String, _ what: String) {
        let input = LosslessFixtures.hex(hex)
        #expect(throws: ImageError.self, "\(what)") {
            try input.withUnsafeBytes { _ = try Inflater.inflate($0, maxOutputBytes: 1 << 20) }
        }
        let error = Self.inflateError(input, maxOutputBytes: 1 << 20)
        if case .malformed = error {} else { Issue.record("\(what): expected .malformed, got \(String(describing: error))") }
    }

    @Test func everyTruncationFails() throws {
        for name in ["level0", "level6", "huffman-only"] {
            let stream = [UInt8](try LosslessFixtures.data("Zlib", name + ".zlib"))
            var cuts = Array(stride(from: 0, to: stream.count, by: 211))
            cuts += (1...12).map { stream.count - $0 }
            for cut in cuts {
                #expect(throws: ImageError.self, "\(name) cut at \(cut)") {
                    _ = try ZlibDecoder.decompress(Array(stream[..<cut]), maxOutputBytes: 1 << 20)
                }
            }
        }
    }

    @Test func checksAdler32AndTheHeader() throws {
        let good = [UInt8](try LosslessFixtures.data("Zlib", "level6.zlib"))
        var badSum = good
        badSum[badSum.count - 1] ^= 1
        #expect(throws: ImageError.malformed("zlib Adler-32 mismatch")) {
            _ = try ZlibDecoder.decompress(badSum, maxOutputBytes: 1 << 20)
        }
        #expect(throws: ImageError.self) { _ = try ZlibDecoder.decompress([0x77, 0x85], maxOutputBytes: 16) }  // method 7
        #expect(throws: ImageError.self) { _ = try ZlibDecoder.decompress([0x78, 0x90], maxOutputBytes: 16) }  // check bits
        #expect(throws: ImageError.self) { _ = try ZlibDecoder.decompress([0x88, 0x1C, 3, 0], maxOutputBytes: 16) }  // 64 KiB window
        #expect(throws: ImageError.unsupported("zlib preset dictionary")) {
            _ = try ZlibDecoder.decompress(LosslessFixtures.hex("8 b8 0 0 0 1"), maxOutputBytes: 16)
        }
        #expect(try ZlibDecoder.decompress(LosslessFixtures.hex("78 9c 63 0 0 0 1 0 1"), maxOutputBytes: 16) == [0])
        #expect(throws: ImageError.truncated("zlib Adler-32 trailer")) {
            _ = try ZlibDecoder.decompress(LosslessFixtures.hex("78 9c 63 0 0 0 1"), maxOutputBytes: 16)
        }
    }

    @Test func stopsADecompressionBombAtItsBound() throws {
        let bomb = DeflateBitWriter.bomb(matches: 200_000)   // 51.6 MB from 325 kB
        let error = Self.inflateError(bomb, maxOutputBytes: 1 << 20)
        guard case .tooLarge = error else {
            Issue.record("expected .tooLarge, got \(String(describing: error))")
            return
        }
        // Below the bound the same stream is fine, and every byte is the zero literal.
        let small = DeflateBitWriter.bomb(matches: 100)
        let output = try small.withUnsafeBytes { try Inflater.inflate($0, maxOutputBytes: 25_801).output }
        #expect(output == [UInt8](repeating: 0, count: 25_801))
    }

    @Test func huffmanTablesFollowTheRFC() throws {
        // Over-subscribed: three codes of length 1.
        #expect(throws: ImageError.self) {
            _ = try HuffmanTable(lengths: [1, 1, 1], alphabet: .distance, rootBits: 8, completeness: .singleCodeOrEmptyAllowed)
        }
        // Incomplete: lengths 1 and 2 leave one 2-bit pattern unused.
        #expect(throws: ImageError.self) {
            _ = try HuffmanTable(lengths: [1, 2], alphabet: .distance, rootBits: 8, completeness: .singleCodeOrEmptyAllowed)
        }
        // One distance code of one bit, and no distance codes at all, are allowed; not for the code-length code.
        _ = try HuffmanTable(lengths: [0, 1], alphabet: .distance, rootBits: 8, completeness: .singleCodeOrEmptyAllowed)
        _ = try HuffmanTable(lengths: [0, 0], alphabet: .distance, rootBits: 8, completeness: .singleCodeOrEmptyAllowed)
        #expect(throws: ImageError.self) {
            _ = try HuffmanTable(lengths: [1], alphabet: .codeLengths, rootBits: 7, completeness: .complete)
        }
        // 15-bit codes go through a subtable: a complete code with lengths 1, 2, ..., 14, 15, 15.
        let lengths = (1...15).map(UInt8.init) + [15]
        let table = try HuffmanTable(lengths: lengths, alphabet: .codeLengths, rootBits: 7, completeness: .complete)
        #expect(table.entries.count > 1 << 7)
    }

    @Test func aSingleDistanceCodeDecodes() throws {
        // A dynamic block by hand: literal 'a', then length 3 at distance 1 with the only distance code,
        // then end of block: "aaaa".
        // Literal/length lengths: 'a' (97) 1 bit, 256 and 257 2 bits (complete); distance 0 one bit.
        var writer = DeflateBitWriter()
        writer.write(1, bits: 1)
        writer.write(2, bits: 2)
        writer.write(1, bits: 5)           // HLIT 258
        writer.write(0, bits: 5)           // HDIST 1
        writer.write(15, bits: 4)          // HCLEN 19
        // Code-length code: symbols 0, 1, 2 and 18 with lengths 2, 2, 2, 2 (complete), in the RFC's order
        // 16 17 18 0 8 7 9 6 10 5 11 4 12 3 13 2 14 1 15.
        let order = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]
        let codeLengthLengths = [0: 2, 1: 2, 2: 2, 18: 2]
        for symbol in order { writer.write(codeLengthLengths[symbol] ?? 0, bits: 3) }
        // Canonical codes: 0 -> 00, 1 -> 01, 2 -> 10, 18 -> 11.
        func zeros(_ n: Int) {
            var left = n
            while left >= 11 {
                let run = min(left, 138)
                writer.writeCode(3, bits: 2); writer.write(run - 11, bits: 7)
                left -= run
            }
            for _ in 0..<left { writer.writeCode(0, bits: 2) }
        }
        zeros(97)
        writer.writeCode(1, bits: 2)       // 'a': length 1
        zeros(256 - 98)
        writer.writeCode(2, bits: 2)       // 256: length 2
        writer.writeCode(2, bits: 2)       // 257: length 2
        writer.writeCode(1, bits: 2)       // distance 0: length 1 (the one code, incomplete as allowed)
        // Literal/length codes: 'a' -> 0, 256 -> 10, 257 -> 11. Distance 0 -> 0.
        writer.writeCode(0, bits: 1)       // 'a'
        writer.writeCode(3, bits: 2)       // length 3
        writer.writeCode(0, bits: 1)       // distance 1
        writer.writeCode(2, bits: 2)       // end of block
        let stream = writer.finish()
        let output = try stream.withUnsafeBytes { try Inflater.inflate($0, maxOutputBytes: 100).output }
        #expect(output == Array("aaaa".utf8))
    }

    @Test func emptyAndTinyInputsFail() {
        for input in [[UInt8](), [0x78], [0x78, 0x9C], [0x78, 0x9C, 0x05]] {
            #expect(throws: ImageError.self) { _ = try ZlibDecoder.decompress(input, maxOutputBytes: 1 << 20) }
        }
    }

    /// The error inflating `input` throws, or nil when it decodes.
    static func inflateError(_ input: [UInt8], maxOutputBytes: Int) -> ImageError? {
        let result = input.withUnsafeBytes { bytes in
            Result { () throws(ImageError) in try Inflater.inflate(bytes, maxOutputBytes: maxOutputBytes) }
        }
        if case .failure(let error) = result { return error }
        return nil
    }
}
