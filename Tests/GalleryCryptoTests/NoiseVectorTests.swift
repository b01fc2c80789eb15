@testable import GalleryCrypto
import Testing

/// The Noise state machine against the cacophony vectors of Noise_XX_25519_ChaChaPoly_SHA256 and
/// Noise_XXpsk3_25519_ChaChaPoly_SHA256: every handshake message byte for byte, the handshake
/// hash, and the transport messages after Split.
@Suite("Noise vectors (cacophony)")
struct NoiseVectorTests {
    /// Runs `vector` between an initiator and a responder with its fixed keys.
    static func run(_ vector: NoiseVectors.Vector, pattern: NoiseHandshakePattern) throws {
        #expect(pattern.protocolName == vector.protocolName)
        let psk = vector.presharedKey.map { hex($0) }
        var initiator = try NoiseHandshakeState(
            role: .initiator, pattern: pattern, prologue: hex(vector.prologue),
            staticKey: X25519.PrivateKey(rawRepresentation: hex(vector.initiatorStatic)), presharedKey: psk,
            ephemeralKey: X25519.PrivateKey(rawRepresentation: hex(vector.initiatorEphemeral)))
        var responder = try NoiseHandshakeState(
            role: .responder, pattern: pattern, prologue: hex(vector.prologue),
            staticKey: X25519.PrivateKey(rawRepresentation: hex(vector.responderStatic)), presharedKey: psk,
            ephemeralKey: X25519.PrivateKey(rawRepresentation: hex(vector.responderEphemeral)))

        for (index, message) in vector.messages.prefix(3).enumerated() {
            let fromInitiator = index % 2 == 0
            let wire = fromInitiator
                ? try initiator.writeMessage(payload: hex(message.payload))
                : try responder.writeMessage(payload: hex(message.payload))
            #expect(hex(wire) == message.ciphertext, "handshake message \(index + 1)")
            let payload = fromInitiator ? try responder.readMessage(wire) : try initiator.readMessage(wire)
            #expect(hex(payload) == message.payload, "handshake message \(index + 1)")
        }
        #expect(initiator.isComplete && responder.isComplete)
        let initiatorTransport = try initiator.transport()
        let responderTransport = try responder.transport()
        #expect(hex(initiatorTransport.handshakeHash) == vector.handshakeHash)
        #expect(hex(responderTransport.handshakeHash) == vector.handshakeHash)
        #expect(initiatorTransport.remoteStaticKey == responderTransport.localStaticKey)
        #expect(responderTransport.remoteStaticKey == initiatorTransport.localStaticKey)

        for (index, message) in vector.messages.enumerated().dropFirst(3) {
            let (sender, receiver) = index % 2 == 0
                ? (initiatorTransport, responderTransport) : (responderTransport, initiatorTransport)
            let record = try sender.seal(hex(message.payload))
            #expect(hex(record) == message.ciphertext, "transport message \(index + 1)")
            #expect(hex(try receiver.open(record)) == message.payload, "transport message \(index + 1)")
        }
    }

    @Test("Noise_XX_25519_ChaChaPoly_SHA256")
    func xx() throws {
        try Self.run(NoiseVectors.xx, pattern: .xx)
    }

    @Test("Noise_XXpsk3_25519_ChaChaPoly_SHA256")
    func xxPSK3() throws {
        try Self.run(NoiseVectors.xxPSK3, pattern: .xxPSK3)
    }
}
