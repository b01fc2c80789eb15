import Foundation
import GallerySimulation
import GalleryWire
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A straightforward model of the frame layout: what a correct decoder cuts from a whole stream.
enum ReferenceCutter {
    struct Result {
        var frames: [Frame] = []
        var failure: WireError?
        /// Where the refused header starts.
        var failureOffset = 0
        /// Bytes taken by the frames.
        var consumed = 0
    }

    static func cut(_ bytes: [UInt8], limit: Int) -> Result {
        var result = Result()
        var index = 0
        while bytes.count - index >= FrameLimits.headerSize {
            let length = (0..<4).reduce(0) { $0 | Int(bytes[index + $1]) << (8 * $1) }
            let flags = bytes[index + 5]
            if length > limit {
                result.failure = .frameTooLarge(length: length, limit: limit)
                result.failureOffset = index
                break
            }
            if flags & 0xFE != 0 {
                result.failure = .malformed("reserved flags")
                result.failureOffset = index
                break
            }
            guard bytes.count - index - FrameLimits.headerSize >= length else { break }
            let start = index + FrameLimits.headerSize
            result.frames.append(Frame(rawType: bytes[index + 4], flags: flags, payload: Array(bytes[start..<(start + length)])))
            index = start + length
        }
        result.consumed = index
        return result
    }
}

/// Mutations of one encoded frame.
enum Mutator {
    /// Bad varints: overlong, 11 bytes, overflowing 64 bits, unterminated, and the largest valid one.
    static let badVarints: [[UInt8]] = [
        [0x80, 0x00], [0xFF, 0x00], [0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01],
        [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x02], [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F],
        [0xFF, 0xFF, 0xFF], [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01], [0xFF, 0xFF, 0xFF, 0xFF, 0x0F],
    ]

    static func mutate(_ base: [UInt8], corpus: [FrameFuzzTests.Seed], using random: inout SeededGenerator) -> [UInt8] {
        var bytes = base
        var fixLength = Int.random(in: 0..<4, using: &random) != 0
        var lengthOverride: UInt32?
        var truncateTo: Int?
        var headerFlips = 0
        let count = Int.random(in: 1...3, using: &random)
        func payloadPosition(_ random: inout SeededGenerator, inclusiveEnd: Bool = false) -> Int {
            let low = min(FrameLimits.headerSize, bytes.count)
            return Int.random(in: low...(inclusiveEnd ? bytes.count : max(low, bytes.count - 1)), using: &random)
        }
        for _ in 0..<count {
            switch Int.random(in: 0..<17, using: &random) {
            case 0:  // Flip 1 to 4 payload bits.
                guard bytes.count > FrameLimits.headerSize else { continue }
                for _ in 0..<Int.random(in: 1...4, using: &random) {
                    bytes[payloadPosition(&random)] ^= 1 << UInt8.random(in: 0...7, using: &random)
                }
            case 1:  // Set a payload byte, often to a boundary value.
                guard bytes.count > FrameLimits.headerSize else { continue }
                bytes[payloadPosition(&random)] = [0x00, 0x01, 0x7F, 0x80, 0xFF, UInt8.random(in: 0...255, using: &random)]
                    .randomElement(using: &random)!
            case 2:  // Insert 1 to 16 random bytes.
                let insert = (0..<Int.random(in: 1...16, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
                bytes.insert(contentsOf: insert, at: payloadPosition(&random, inclusiveEnd: true))
            case 3:  // Delete 1 to 16 bytes of the payload.
                guard bytes.count > FrameLimits.headerSize else { continue }
                let start = payloadPosition(&random)
                bytes.removeSubrange(start..<min(bytes.count, start + Int.random(in: 1...16, using: &random)))
            case 4:  // Overwrite with a bad varint.
                let varint = badVarints.randomElement(using: &random)!
                let start = payloadPosition(&random, inclusiveEnd: true)
                bytes.replaceSubrange(start..<min(bytes.count, start + varint.count), with: varint)
            case 5:  // Insert a bad varint.
                bytes.insert(contentsOf: badVarints.randomElement(using: &random)!, at: payloadPosition(&random, inclusiveEnd: true))
            case 6:  // A huge count or length at the start of the payload.
                let start = min(FrameLimits.headerSize, bytes.count)
                let huge: [UInt8] = [[0xFF, 0xFF, 0xFF, 0xFF, 0x0F], [0x80, 0x80, 0x04], [0xFF, 0xFF, 0x03], [0xFF, 0x7F]]
                    .randomElement(using: &random)!
                bytes.replaceSubrange(start..<min(bytes.count, start + 1), with: huge)
            case 7:  // Duplicate a slice of the payload.
                guard bytes.count > FrameLimits.headerSize else { continue }
                let start = payloadPosition(&random)
                let slice = bytes[start..<min(bytes.count, start + Int.random(in: 1...64, using: &random))]
                bytes.insert(contentsOf: Array(slice), at: payloadPosition(&random, inclusiveEnd: true))
            case 8:  // Another frame's payload under this frame's header: a wrong type for the payload.
                let other = corpus.randomElement(using: &random)!.bytes
                bytes = Array(bytes.prefix(FrameLimits.headerSize)) + other.dropFirst(FrameLimits.headerSize)
            case 9:  // A wrong type byte: another known type, or any byte.
                guard bytes.count > 4 else { continue }
                bytes[4] = Int.random(in: 0..<3, using: &random) == 0
                    ? UInt8.random(in: 0...255, using: &random) : FrameType.allCases.randomElement(using: &random)!.rawValue
            case 10:  // Reserved flag bits.
                guard bytes.count > 5 else { continue }
                bytes[5] |= UInt8.random(in: 1...127, using: &random) << 1
            case 11:  // The ignorable flag, on a known or an unknown type.
                guard bytes.count > 5 else { continue }
                bytes[5] = 1
                if Bool.random(using: &random) { bytes[4] = UInt8.random(in: 0x24...0xFF, using: &random) }
            case 12:  // A length over any limit.
                lengthOverride = [UInt32(FrameLimits.handshakeMaximum) + 1, FrameLimits.minimum + 1, FrameLimits.defaultMaximum + 1,
                                  1 << 31, .max, UInt32.random(in: 4_097 ... .max, using: &random)].randomElement(using: &random)!
                fixLength = false
            case 13:  // A length a little off.
                let actual = UInt32(truncatingIfNeeded: max(0, bytes.count - FrameLimits.headerSize))
                lengthOverride = actual &+ UInt32(bitPattern: Int32.random(in: -4...4, using: &random))
                fixLength = false
            case 14:  // Truncation.
                truncateTo = Int.random(in: 0..<max(1, bytes.count), using: &random)
            case 15:  // Bit flips anywhere, header included.
                headerFlips += Int.random(in: 1...3, using: &random)
            default:  // Pure random bytes.
                bytes = (0..<Int.random(in: 0...64, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
                fixLength = Bool.random(using: &random)
            }
        }
        if bytes.count >= FrameLimits.headerSize {
            let length: UInt32? = lengthOverride ?? (fixLength ? UInt32(bytes.count - FrameLimits.headerSize) : nil)
            if let length {
                for index in 0..<4 { bytes[index] = UInt8(truncatingIfNeeded: length >> (8 * UInt32(index))) }
            }
        }
        for _ in 0..<headerFlips where !bytes.isEmpty {
            bytes[Int.random(in: 0..<bytes.count, using: &random)] ^= 1 << UInt8.random(in: 0...7, using: &random)
        }
        if let truncateTo { bytes = Array(bytes.prefix(truncateTo)) }
        return bytes
    }
}
