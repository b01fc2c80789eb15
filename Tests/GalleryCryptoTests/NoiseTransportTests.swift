@testable import GalleryCrypto
import GallerySimulation
import Testing

/// The transport after an XXpsk3 handshake: records both ways, and a record flipped, replayed,
/// reordered, dropped, injected or cut fails with a typed error and closes the transport; nonce
/// exhaustion and rekeying as the Noise spec says.
@Suite("Noise transport")
struct NoiseTransportTests {
    /// The two transports of a fresh handshake (initiator's first).
    static func transports() throws -> (NoiseTransport, NoiseTransport) {
        var (initiator, responder) = try NoiseHandshakeTests.pair()
        _ = try responder.readMessage(initiator.writeMessage())
        _ = try initiator.readMessage(responder.writeMessage())
        _ = try responder.readMessage(initiator.writeMessage())
        return (try initiator.transport(), try responder.transport())
    }

    @Test("Random records both ways, 0...65,519 bytes, arrive intact and in order")
    func roundTrips() throws {
        let (a, b) = try Self.transports()
        var generator = SeededGenerator(seed: 0x7A45)
        for index in 0..<200 {
            let length = index == 0 ? NoiseTransport.maxPlaintextByteCount : Int.random(in: 0...2000, using: &generator)
            let plaintext = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let (sender, receiver) = Bool.random(using: &generator) ? (a, b) : (b, a)
            let record = try sender.seal(plaintext)
            #expect(record.count == length + 16)
            #expect(try receiver.open(record) == plaintext)
        }
        #expect(a.sentCount + b.sentCount == 200 && a.receivedCount == b.sentCount)
    }

    /// Checks that `receiver` refuses `record` with `error`, and is closed for both directions after.
    static func expectRefusal(_ receiver: NoiseTransport, _ record: [UInt8], _ error: NoiseError,
                              sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(throws: error, sourceLocation: sourceLocation) { try receiver.open(record) }
        #expect(receiver.isClosed, sourceLocation: sourceLocation)
        #expect(throws: NoiseError.self, sourceLocation: sourceLocation) { try receiver.seal([1]) }
        #expect(throws: NoiseError.self, sourceLocation: sourceLocation) { try receiver.open(record) }
    }

    @Test("Every flipped bit of a record is refused")
    func flippedBits() throws {
        // One handshake; each transport() call splits fresh transports (nonces at 0) from it.
        var (initiator, responder) = try NoiseHandshakeTests.pair()
        _ = try responder.readMessage(initiator.writeMessage())
        _ = try initiator.readMessage(responder.writeMessage())
        _ = try responder.readMessage(initiator.writeMessage())
        let record = try initiator.transport().seal(Array("a record of some bytes".utf8))
        for bit in 0..<(record.count * 8) {
            var tampered = record
            tampered[bit / 8] ^= 1 << (bit % 8)
            Self.expectRefusal(try responder.transport(), tampered, .authenticationFailed(handshakeMessage: nil))
        }
        #expect(try responder.transport().open(record) == Array("a record of some bytes".utf8))
    }

    @Test("Replayed, reordered, dropped, injected, cut and oversized records are refused")
    func streamAttacks() throws {
        // Replay.
        var (a, b) = try Self.transports()
        let r0 = try a.seal([0])
        #expect(try b.open(r0) == [0])
        Self.expectRefusal(b, r0, .authenticationFailed(handshakeMessage: nil))

        // Reorder.
        (a, b) = try Self.transports()
        _ = try a.seal([1])
        Self.expectRefusal(b, try a.seal([2]), .authenticationFailed(handshakeMessage: nil))

        // Drop: the third record after the second is lost.
        (a, b) = try Self.transports()
        let s0 = try a.seal([1]), _ = try a.seal([2]), s2 = try a.seal([3])
        #expect(try b.open(s0) == [1])
        Self.expectRefusal(b, s2, .authenticationFailed(handshakeMessage: nil))

        // Injected: random bytes, and a record of another session.
        (a, b) = try Self.transports()
        var generator = SeededGenerator(seed: 0x1_5EC7)
        Self.expectRefusal(b, (0..<40).map { _ in UInt8.random(in: 0...255, using: &generator) }, .authenticationFailed(handshakeMessage: nil))
        (a, b) = try Self.transports()
        let (other, _) = try Self.transports()
        Self.expectRefusal(b, try other.seal([1]), .authenticationFailed(handshakeMessage: nil))

        // A record reflected back to its sender.
        (a, b) = try Self.transports()
        Self.expectRefusal(a, try a.seal([5]), .authenticationFailed(handshakeMessage: nil))

        // Cut.
        (a, b) = try Self.transports()
        let whole = try a.seal([UInt8](repeating: 7, count: 100))
        Self.expectRefusal(b, Array(whole.dropLast()), .authenticationFailed(handshakeMessage: nil))
        (a, b) = try Self.transports()
        Self.expectRefusal(b, Array(try a.seal([1]).prefix(10)), .messageTooShort(handshakeMessage: nil, length: 10, needed: 16))

        // Oversized: refused when opening; sealing one is refused without closing.
        (a, b) = try Self.transports()
        Self.expectRefusal(b, [UInt8](repeating: 0, count: 65_536), .messageTooLong(length: 65_536))
        #expect(throws: NoiseError.messageTooLong(length: 65_520)) { try a.seal([UInt8](repeating: 0, count: 65_520)) }
        #expect(!a.isClosed)
    }

    @Test("Nonce 2^64 - 2 is the last one; then nonceExhausted, and the transport is closed")
    func nonceExhaustion() throws {
        let (a, b) = try Self.transports()
        a.setNonces(sending: .max - 1, receiving: 0)
        b.setNonces(sending: 0, receiving: .max - 1)
        #expect(try b.open(a.seal([42])) == [42])
        #expect(throws: NoiseError.nonceExhausted) { try a.seal([43]) }
        #expect(a.isClosed)
        #expect(throws: NoiseError.nonceExhausted) { try b.open([UInt8](repeating: 0, count: 17)) }
    }

    @Test("Rekey: both sides at the same record keep talking; one side alone cannot")
    func rekey() throws {
        let (a, b) = try Self.transports()
        #expect(try b.open(a.seal([1])) == [1])
        a.rekeySending()
        b.rekeyReceiving()
        #expect(try b.open(a.seal([2])) == [2])
        #expect(try a.open(b.seal([3])) == [3])
        a.rekeySending()
        Self.expectRefusal(b, try a.seal([4]), .authenticationFailed(handshakeMessage: nil))
    }
}
