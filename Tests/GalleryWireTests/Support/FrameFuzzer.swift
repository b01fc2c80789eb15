import Foundation
import GalleryModel
import GallerySimulation
import GalleryWire
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif


/// Counts of what the fuzz loop saw.
struct FuzzStats: Sendable {
    var cases = 0
    var mutatedFrames = 0
    var randomChunks = 0
    var bytes = 0
    var frames = 0
    var messages = 0
    var wireErrors = 0
    var decoderErrors = 0
    var tooLarge = 0
    var opsChecked = 0
    var opsDecoded = 0
    var maxBuffered = 0
}

struct FuzzReport: Sendable {
    var stats: FuzzStats
    var failures: [(UInt64, String)]
}

/// One case: a stream of 1 to 3 parts (mutated frames, valid frames, random bytes) fed in pieces.
enum FuzzCase {
    /// A case seed from the base seed and the case index (a 64-bit mix, so cases are independent).
    static func seed(base: UInt64, index: Int) -> UInt64 {
        var z = base ^ (UInt64(index) &* 0xD6E8_FEB8_6659_FD93)
        z = (z ^ (z >> 32)) &* 0xD6E8_FEB8_6659_FD93
        z = (z ^ (z >> 32)) &* 0xD6E8_FEB8_6659_FD93
        return z ^ (z >> 32)
    }

    /// Runs one case; a description of what went wrong, nil when every invariant held.
    static func run(seed: UInt64, corpus: [FrameFuzzTests.Seed], stats: inout FuzzStats) -> String? {
        var random = SeededGenerator(seed: seed)
        stats.cases += 1
        // The stream.
        var stream: [UInt8] = []
        let parts = Int.random(in: 1...3, using: &random)
        var mutated = false
        for part in 0..<parts {
            let roll = Int.random(in: 0..<100, using: &random)
            if roll < 6 {
                stream += (0..<Int.random(in: 0...300, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
                stats.randomChunks += 1
                mutated = true
            } else if roll < 30 && !(part == parts - 1 && !mutated) {
                stream += corpus.randomElement(using: &random)!.bytes
            } else {
                stream += Mutator.mutate(corpus.randomElement(using: &random)!.bytes, corpus: corpus, using: &random)
                stats.mutatedFrames += 1
                mutated = true
            }
        }
        stats.bytes += stream.count
        // The limit the decoder enforces.
        let limit: Int = switch Int.random(in: 0..<20, using: &random) {
        case 0..<10: FrameLimits.handshakeMaximum
        case 10..<15: Int(FrameLimits.minimum)
        case 15..<18: Int(FrameLimits.defaultMaximum)
        default: Int.random(in: 0...300, using: &random)
        }
        let reference = ReferenceCutter.cut(stream, limit: limit)

        var decoder = FrameDecoder(maximumPayload: limit)
        var offset = 0
        var yielded = 0
        var threw = false
        feeding: while offset < stream.count {
            let size: Int = switch Int.random(in: 0..<10, using: &random) {
            case 0..<2: 1
            case 2..<5: Int.random(in: 1...16, using: &random)
            case 5..<8: Int.random(in: 1...512, using: &random)
            default: stream.count - offset
            }
            let previousEnd = offset
            let end = min(stream.count, offset + size)
            decoder.append(Array(stream[offset..<end]))
            offset = end
            var steps = 0
            while true {
                steps += 1
                if steps > stream.count + 2 { return "the decoder keeps returning frames (\(steps) steps)" }
                let frame: Frame?
                do {
                    frame = try decoder.next()
                } catch {
                    stats.decoderErrors += 1
                    guard let expected = reference.failure else { return "decoder threw \(error), the reference did not" }
                    guard yielded == reference.frames.count else {
                        return "decoder threw \(error) after \(yielded) frames, the reference after \(reference.frames.count)"
                    }
                    switch (error, expected) {
                    case (.frameTooLarge, .frameTooLarge):
                        stats.tooLarge += 1
                        guard error == expected else { return "decoder threw \(error), the reference \(expected)" }
                    case (.malformed, .malformed):
                        break
                    default:
                        return "decoder threw \(error), the reference \(expected)"
                    }
                    // Refused as soon as the header was complete, not after buffering the payload.
                    let headerEnd = reference.failureOffset + FrameLimits.headerSize
                    guard previousEnd < headerEnd && headerEnd <= end else {
                        return "decoder refused the header ending at \(headerEnd) only after bytes \(previousEnd)..<\(end)"
                    }
                    threw = true
                    break feeding
                }
                guard let frame else { break }
                guard yielded < reference.frames.count, frame == reference.frames[yielded] else {
                    return "decoder frame \(yielded) (type \(frame.type), \(frame.payload.count) B) differs from the reference"
                }
                yielded += 1
                stats.frames += 1
                guard frame.payload.count <= limit, frame.flags & ~Frame.ignorableFlag == 0 else {
                    return "decoder returned a frame of \(frame.payload.count) B, flags \(frame.flags), limit \(limit)"
                }
                if let failure = checkMessage(frame, stats: &stats) { return failure }
            }
            stats.maxBuffered = max(stats.maxBuffered, decoder.bufferedCount)
            guard decoder.bufferedCount < FrameLimits.headerSize + limit else {
                return "decoder holds \(decoder.bufferedCount) B with a limit of \(limit)"
            }
        }
        if !threw && reference.failure != nil { return "the reference refused a header, the decoder did not" }
        if offset == stream.count && reference.failure == nil {
            guard yielded == reference.frames.count else { return "decoder cut \(yielded) frames, the reference \(reference.frames.count)" }
            guard decoder.bufferedCount == stream.count - reference.consumed else {
                return "decoder holds \(decoder.bufferedCount) B, expected \(stream.count - reference.consumed)"
            }
        }
        return nil
    }

    /// `Message(frame:)` gives a message or a `WireError`; a message re-encodes to a frame that
    /// decodes again to the same bytes; ops payloads agree with `OpCodec.decode`.
    static func checkMessage(_ frame: Frame, stats: inout FuzzStats) -> String? {
        let decoded: Message?
        do {
            decoded = try Message(frame: frame)
            stats.messages += 1
        } catch {
            stats.wireErrors += 1
            switch error {
            case .unknownFrameType(let type):
                guard frame.knownType == nil, type == frame.type else { return "unknownFrameType(\(type)) for type \(frame.type)" }
            case .malformed:
                guard frame.knownType != nil else { return "malformed for an unknown type \(frame.type)" }
            case .rejectedOp:
                guard frame.knownType == .ops || frame.knownType == .opsCompact else {
                    return "rejectedOp for a frame of type \(frame.type)"
                }
            case .frameTooLarge, .unexpected:
                return "Message(frame:) threw \(error)"
            }
            decoded = nil
        }
        if decoded == nil && frame.knownType != nil && frame.knownType != .ops && frame.knownType != .opsCompact { return nil }
        // Encoding what was decoded gives a frame that decodes to the same encoding again.
        var reencoded: Frame?
        if let decoded {
            guard frame.knownType != nil, decoded.type == frame.knownType else { return "decoded \(decoded.type) from type \(frame.type)" }
            let again = decoded.frame
            do {
                let second = try Message(frame: again)
                guard second.frame.encoded == again.encoded else { return "\(decoded.type): re-encoding is not stable" }
            } catch {
                return "\(decoded.type): the re-encoded frame does not decode: \(error)"
            }
            reencoded = again
        }
        // An ops payload: `OpCodec` alone agrees with `Message(frame:)`.
        if frame.knownType == .ops {
            stats.opsChecked += 1
            do {
                let ops = try OpCodec.decode(frame.payload)
                stats.opsDecoded += 1
                guard let reencoded else { return "OpCodec decoded what Message(frame:) refused" }
                guard OpCodec.encode(ops) == reencoded.payload else { return "OpCodec and Message(frame:) disagree" }
            } catch {
                guard decoded == nil else { return "Message(frame:) decoded ops that OpCodec refuses: \(error)" }
            }
        }
        // An ops_compact payload (read as the first of its direction): the same agreement.
        if frame.knownType == .opsCompact {
            stats.opsChecked += 1
            var tables = CompactOpTables(), again = CompactOpTables()
            do {
                let ops = try OpCodec.decodeCompact(frame.payload, tables: &tables)
                stats.opsDecoded += 1
                guard let reencoded else { return "OpCodec decoded what Message(frame:) refused (compact)" }
                guard OpCodec.encodeCompact(ops, tables: &again) == reencoded.payload else {
                    return "OpCodec and Message(frame:) disagree (compact)"
                }
            } catch {
                guard decoded == nil else { return "Message(frame:) decoded compact ops that OpCodec refuses: \(error)" }
            }
        }
        return nil
    }
}
