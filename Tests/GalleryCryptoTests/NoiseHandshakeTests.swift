@testable import GalleryCrypto
import GallerySimulation
import Testing

/// The XXpsk3 handshake between this module's initiator and responder: the golden transcript,
/// interop with fresh keys, and every way a handshake must fail cleanly (a typed error, the state
/// closed afterwards, never a trap).
@Suite("Noise handshake (XXpsk3)")
struct NoiseHandshakeTests {
    /// A pair of handshake states with fresh (or given) keys and the same PSK and prologue.
    static func pair(
        initiatorPSK: [UInt8] = [UInt8](repeating: 0x5a, count: 32), responderPSK: [UInt8] = [UInt8](repeating: 0x5a, count: 32),
        initiatorPrologue: [UInt8] = [1], responderPrologue: [UInt8] = [1]
    ) throws -> (NoiseHandshakeState, NoiseHandshakeState) {
        (try NoiseHandshakeState(role: .initiator, pattern: .xxPSK3, prologue: initiatorPrologue,
                                 staticKey: X25519.PrivateKey(), presharedKey: initiatorPSK),
         try NoiseHandshakeState(role: .responder, pattern: .xxPSK3, prologue: responderPrologue,
                                 staticKey: X25519.PrivateKey(), presharedKey: responderPSK))
    }

    @Test("The golden transcript: this module writes the independent implementation's bytes")
    func goldenTranscript() throws {
        let golden = NoiseGoldenTranscript.self
        var initiator = try NoiseHandshakeState(
            role: .initiator, pattern: .xxPSK3, prologue: golden.prologue,
            staticKey: X25519.PrivateKey(rawRepresentation: golden.key("initiator static")),
            presharedKey: golden.key("pre-shared key"),
            ephemeralKey: X25519.PrivateKey(rawRepresentation: golden.key("initiator ephemeral")))
        var responder = try NoiseHandshakeState(
            role: .responder, pattern: .xxPSK3, prologue: golden.prologue,
            staticKey: X25519.PrivateKey(rawRepresentation: golden.key("responder static")),
            presharedKey: golden.key("pre-shared key"),
            ephemeralKey: X25519.PrivateKey(rawRepresentation: golden.key("responder ephemeral")))
        let m1 = try initiator.writeMessage()
        #expect(hex(m1) == golden.messages[0])
        #expect(try responder.readMessage(m1).isEmpty)
        let m2 = try responder.writeMessage()
        #expect(hex(m2) == golden.messages[1])
        #expect(try initiator.readMessage(m2).isEmpty)
        let m3 = try initiator.writeMessage()
        #expect(hex(m3) == golden.messages[2])
        #expect(try responder.readMessage(m3).isEmpty)
        let (a, b) = (try initiator.transport(), try responder.transport())
        #expect(hex(a.handshakeHash) == golden.handshakeHash && hex(b.handshakeHash) == golden.handshakeHash)
        #expect(hex(try a.seal(Array("ping".utf8))) == golden.ping)
        #expect(hex(try b.seal(Array("pong".utf8))) == golden.pong)
    }

    @Test("Fresh keys: payloads arrive, both sides learn each other's static key when XX says, same hash")
    func interop() throws {
        var (initiator, responder) = try Self.pair()
        #expect(initiator.isOurTurn && !responder.isOurTurn)
        #expect(try responder.readMessage(initiator.writeMessage(payload: [1, 2, 3])) == [1, 2, 3])
        #expect(responder.remoteStaticKey == nil)
        #expect(try initiator.readMessage(responder.writeMessage(payload: Array("responder".utf8))) == Array("responder".utf8))
        // The initiator knows (and could refuse) the responder before it sends its own identity.
        #expect(initiator.remoteStaticKey == responder.localStaticKey)
        #expect(try responder.readMessage(initiator.writeMessage(payload: Array("initiator".utf8))) == Array("initiator".utf8))
        #expect(responder.remoteStaticKey == initiator.localStaticKey)
        let (a, b) = (try initiator.transport(), try responder.transport())
        #expect(a.handshakeHash == b.handshakeHash && a.handshakeHash.count == 32)
        #expect(a.remoteStaticKey == b.localStaticKey && b.remoteStaticKey == a.localStaticKey)
    }

    /// The three handshake messages of a fresh pair, and the receiver's state before each.
    static func recordedHandshake() throws -> [(receiver: NoiseHandshakeState, message: [UInt8])] {
        var (initiator, responder) = try pair()
        var recorded: [(NoiseHandshakeState, [UInt8])] = []
        let m1 = try initiator.writeMessage(payload: [9])
        recorded.append((responder, m1))
        _ = try responder.readMessage(m1)
        let m2 = try responder.writeMessage(payload: [9])
        recorded.append((initiator, m2))
        _ = try initiator.readMessage(m2)
        let m3 = try initiator.writeMessage(payload: [9])
        recorded.append((responder, m3))
        return recorded
    }

    @Test("A flipped bit anywhere in any handshake message fails that message's authentication, then the state is closed")
    func flippedBits() throws {
        for (index, step) in try Self.recordedHandshake().enumerated() {
            // Every bit of message 1 (no DH to read it); one bit per byte of messages 2 and 3 (each read does X25519).
            let bits = index == 0 ? Array(0..<(step.message.count * 8)) : (0..<step.message.count).map { $0 * 8 + $0 % 8 }
            for bit in bits {
                var receiver = step.receiver
                var tampered = step.message
                tampered[bit / 8] ^= 1 << (bit % 8)
                #expect(throws: NoiseError.authenticationFailed(handshakeMessage: index), "message \(index + 1), bit \(bit)") {
                    try receiver.readMessage(tampered)
                }
                #expect(throws: NoiseError.self) { try receiver.readMessage(step.message) }
                #expect(!receiver.isComplete)
            }
            // The untouched message still reads.
            var receiver = step.receiver
            #expect(try receiver.readMessage(step.message) == [9])
        }
    }

    @Test("A wrong PSK fails at message 3 on the responder; a wrong prologue at message 1")
    func wrongSecrets() throws {
        var (initiator, responder) = try Self.pair(responderPSK: [UInt8](repeating: 0x5b, count: 32))
        _ = try responder.readMessage(initiator.writeMessage())
        _ = try initiator.readMessage(responder.writeMessage())
        let m3 = try initiator.writeMessage()
        #expect(throws: NoiseError.authenticationFailed(handshakeMessage: 2)) { try responder.readMessage(m3) }
        #expect(throws: NoiseError.self) { try responder.transport() }

        var (initiator2, responder2) = try Self.pair(initiatorPrologue: [1], responderPrologue: [2])
        let m1 = try initiator2.writeMessage()
        #expect(throws: NoiseError.authenticationFailed(handshakeMessage: 0)) { try responder2.readMessage(m1) }
    }

    @Test("Cut, empty, oversized and random messages throw typed errors")
    func malformed() throws {
        let steps = try Self.recordedHandshake()
        for (index, step) in steps.enumerated() {
            for length in [0, 1, 31, 32, 47, step.message.count - 1] {
                var receiver = step.receiver
                #expect(throws: NoiseError.self, "message \(index + 1) cut to \(length)") {
                    try receiver.readMessage(Array(step.message.prefix(length)))
                }
            }
        }
        var cut = steps[0].receiver
        #expect(throws: NoiseError.messageTooShort(handshakeMessage: 0, length: 40, needed: 48)) {
            try cut.readMessage(Array(steps[0].message.prefix(40)))
        }
        var big = steps[0].receiver
        #expect(throws: NoiseError.messageTooLong(length: 65_536)) { try big.readMessage([UInt8](repeating: 0, count: 65_536)) }
        var generator = SeededGenerator(seed: 0x0015_E3)
        for _ in 0..<200 {
            var receiver = steps[Int.random(in: 0..<3, using: &generator)].receiver
            let junk = (0..<Int.random(in: 0...200, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            #expect(throws: NoiseError.self) { try receiver.readMessage(junk) }
        }
    }

    @Test("Out of turn, after the end, before the end, and bad PSKs are refused")
    func misuse() throws {
        var (initiator, responder) = try Self.pair()
        #expect(throws: NoiseError.outOfTurn) { try responder.writeMessage() }
        #expect(throws: NoiseError.outOfTurn) { try initiator.readMessage([UInt8](repeating: 0, count: 48)) }
        #expect(throws: NoiseError.handshakeIncomplete) { try initiator.transport() }
        #expect(throws: NoiseError.messageTooLong(length: 65_536 + 48)) { try initiator.writeMessage(payload: [UInt8](repeating: 0, count: 65_536)) }
        // That error closed the initiator.
        #expect(throws: NoiseError.self) { try initiator.writeMessage() }

        (initiator, responder) = try Self.pair()
        _ = try responder.readMessage(initiator.writeMessage())
        _ = try initiator.readMessage(responder.writeMessage())
        _ = try responder.readMessage(initiator.writeMessage())
        #expect(throws: NoiseError.handshakeNotInProgress) { try initiator.writeMessage() }
        #expect(throws: NoiseError.handshakeNotInProgress) { try responder.readMessage([]) }

        let key = X25519.PrivateKey()
        #expect(throws: NoiseError.self) { try NoiseHandshakeState(role: .initiator, pattern: .xxPSK3, prologue: [], staticKey: key, presharedKey: nil) }
        #expect(throws: NoiseError.self) { try NoiseHandshakeState(role: .initiator, pattern: .xxPSK3, prologue: [], staticKey: key, presharedKey: [1]) }
        #expect(throws: NoiseError.self) { try NoiseHandshakeState(role: .initiator, pattern: .xx, prologue: [], staticKey: key, presharedKey: [UInt8](repeating: 0, count: 32)) }
    }

    @Test("A responder whose static key has small order is refused by the initiator")
    func smallOrderPeer() throws {
        var (initiator, responder) = try Self.pair()
        _ = try responder.readMessage(initiator.writeMessage())
        // The all-zero ephemeral key of small order in place of the responder's.
        var m2 = try responder.writeMessage()
        for index in 0..<32 { m2[index] = 0 }
        #expect(throws: NoiseError.invalidRemoteKey) { try initiator.readMessage(m2) }
    }
}
