import GalleryCrypto

/// The connecting side of the handshake (protocol.md, "Handshake"): `hello` and Noise message 1
/// -> (message 2) -> message 3, then the sealed channel.
///
/// Pure: it turns received messages into messages to send, so that tests drive it without sockets.
/// When `expectedNode` is given (the node this dial means to reach: the address book's owner of
/// the address, or the node that answered there before), a responder whose static key has another
/// node ID is refused after message 2, before this node sends its own static key or proves the
/// secret.
package struct ClientHandshake: Sendable {
    /// What to do after a received message.
    package enum Step: Sendable {
        /// Send this message, then every later frame sealed with `result`'s keys.
        case finish(Message, HandshakeResult)
    }

    private let settings: HandshakeSettings
    private let expectedNode: NodeID?
    private let fixedEphemeralKey: X25519.PrivateKey?
    private var noise: NoiseHandshakeState?
    private var version: UInt16 = 0
    private var finished = false

    /// Creates the client side; `expectedNode` is the node ID the dialed node's static key must have.
    package init(settings: HandshakeSettings, expectedNode: NodeID? = nil) {
        self.init(settings: settings, expectedNode: expectedNode, ephemeralKey: nil)
    }

    /// As the public `init`, with a fixed ephemeral key (golden transcripts only).
    package init(settings: HandshakeSettings, expectedNode: NodeID?, ephemeralKey: X25519.PrivateKey?) {
        self.settings = settings
        self.expectedNode = expectedNode
        fixedEphemeralKey = ephemeralKey
    }

    /// The cleartext `hello` this client sends.
    package var hello: Message { .hello(Hello(versions: settings.versions)) }

    /// The first messages: `hello`, then Noise message 1 (sent together: one round trip saved).
    package mutating func start() throws(HandshakeFailure) -> [Message] {
        guard noise == nil, let highest = settings.versions.max() else {
            throw HandshakeFailure(.internalError, "the handshake was started twice")
        }
        version = highest
        do {
            var state = try NoiseHandshakeState(
                role: .initiator, pattern: HandshakeSettings.pattern,
                prologue: HandshakeSettings.prologue(version: version, hello: hello.frame),
                staticKey: settings.staticKey, presharedKey: settings.dialingKey, ephemeralKey: fixedEphemeralKey ?? settings.makeEphemeralKey())
            let first = try state.writeMessage()
            noise = state
            return [hello, .noiseHandshake(first)]
        } catch {
            throw HandshakeFailure(.internalError, error.errorDescription ?? "\(error)")
        }
    }

    /// Takes the server's next message.
    package mutating func receive(_ message: Message) throws(HandshakeFailure) -> Step {
        switch message {
        case .noiseHandshake(let bytes) where noise != nil && !finished:
            guard var state = noise else { throw HandshakeFailure(.protocolError, "no handshake") }
            try HandshakeSettings.checkLength(of: bytes, message: 1)
            do {
                _ = try state.readMessage(bytes)
            } catch {
                throw HandshakeFailure.noise(error, message: 1)
            }
            guard let key = state.remoteStaticKey else { throw HandshakeFailure(.protocolError, "no static key in message 2") }
            if key == settings.staticKey.publicKey {
                throw HandshakeFailure(.duplicateConnection, "connected to itself")
            }
            if let expectedNode, NodeID(key: key) != expectedNode {
                throw HandshakeFailure(.identityMismatch,
                    "expected node \(expectedNode) at this address, found node \(NodeID(key: key))")
            }
            do {
                let third = try state.writeMessage()
                finished = true
                noise = state
                return .finish(.noiseHandshake(third), HandshakeResult(version: version, transport: try state.transport()))
            } catch {
                throw HandshakeFailure(.internalError, error.errorDescription ?? "\(error)")
            }
        case .error(let code, let reason):
            throw HandshakeFailure(code, reason)
        default:
            throw HandshakeFailure(.protocolError, "\(message.type) during the handshake")
        }
    }
}
