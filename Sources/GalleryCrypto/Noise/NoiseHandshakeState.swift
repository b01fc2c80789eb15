/// Noise's HandshakeState (spec rev. 34, section 5.3) for `Noise_XXpsk3_25519_ChaChaPoly_SHA256`
/// (and plain `Noise_XX_…`): a pure state machine that turns payloads into handshake messages and
/// back, and at the end yields a `NoiseTransport`. It does no I/O: the caller carries the bytes.
///
/// ```
/// var initiator = try NoiseHandshakeState(role: .initiator, pattern: .xxPSK3, prologue: p, staticKey: s, presharedKey: psk)
/// let m1 = try initiator.writeMessage()          // -> e
/// let payload2 = try initiator.readMessage(m2)   // <- e, ee, s, es   (initiator now knows the peer's static key)
/// let m3 = try initiator.writeMessage()          // -> s, se, psk
/// let transport = try initiator.transport()
/// ```
///
/// **Where this lives.** In `GalleryCrypto/Noise/`, not `GalleryWire/Secure/`: it is the Noise
/// specification and nothing of GallerySync (it is checked against the cacophony vectors of other
/// implementations, and has no gallery type). What is GallerySync's (the prologue that binds the
/// protocol version, how the space secret becomes the 32-byte PSK, what the payloads carry, how
/// a frame maps to records) belongs in `GalleryWire/Secure/`, built on this.
///
/// **psk3.** With a psk token in the pattern, every `e` token also does MixKey(e) (spec 9.2), and
/// `psk` does MixKeyAndHash(psk). In XXpsk3 the PSK enters after `se` in message 3, so a peer
/// without it fails on message 3 (the responder) or on the first transport record (the initiator).
/// Messages 1 and 2 do not prove the PSK; message 2 reveals the responder's static key (encrypted
/// to the initiator's ephemeral) to whoever starts a handshake. Identity hiding is XX's: the
/// initiator's static key is encrypted to a key only the responder has.
///
/// **A value.** Copying a handshake state forks it (the tests replay one message to saved copies);
/// a connection keeps one. The transport it ends in is a class, so its nonces cannot be forked.
///
/// **Failing closed.** A thrown error leaves the state closed: every later call throws
/// `NoiseError.closed`. Messages are limited to 65,535 bytes (spec section 3).
package struct NoiseHandshakeState: Sendable {
    /// Which side of the handshake this is.
    package enum Role: Sendable, Equatable {
        /// Sends the first message.
        case initiator
        /// Receives the first message.
        case responder
    }

    /// The largest handshake or transport message (65,535 bytes).
    package static let maxMessageByteCount = 65_535

    /// This side.
    package let role: Role
    /// The pattern run.
    package let pattern: NoiseHandshakePattern
    /// ck, h and the cipher.
    private var symmetric: NoiseSymmetricState
    /// s.
    private let staticKey: X25519.PrivateKey
    /// e, once made (or fixed by a test).
    private var ephemeralKey: X25519.PrivateKey?
    /// The ephemeral key to use instead of a random one (test vectors, or drawn by the caller).
    private let fixedEphemeralKey: X25519.PrivateKey?
    /// rs, once received.
    package private(set) var remoteStaticKey: X25519.PublicKey?
    /// re, once received.
    private var remoteEphemeralKey: X25519.PublicKey?
    /// The 32-byte pre-shared key, for patterns with a psk token.
    private var presharedKey: [UInt8]?
    /// The index of the next message to write or read.
    private var messageIndex = 0
    /// The first error, which closed the handshake.
    private var failure: NoiseError?

    /// A handshake for `role` of `pattern`, with `prologue` (bytes both sides must agree on, mixed
    /// into h), the long-term `staticKey`, and the 32-byte `presharedKey` if the pattern has a psk token.
    ///
    /// Throws `invalidKey` for a missing, unneeded or wrong-length PSK.
    package init(role: Role, pattern: NoiseHandshakePattern, prologue: [UInt8], staticKey: X25519.PrivateKey,
                presharedKey: [UInt8]?) throws(NoiseError) {
        try self.init(role: role, pattern: pattern, prologue: prologue, staticKey: staticKey,
                      presharedKey: presharedKey, ephemeralKey: nil)
    }

    /// As the public `init`, with the ephemeral key given: fixed for test vectors and golden
    /// transcripts, or drawn by the caller's own generator (an ephemeral key must be fresh for
    /// every handshake).
    package init(role: Role, pattern: NoiseHandshakePattern, prologue: [UInt8], staticKey: X25519.PrivateKey,
         presharedKey: [UInt8]?, ephemeralKey: X25519.PrivateKey?) throws(NoiseError) {
        switch (pattern.usesPresharedKey, presharedKey) {
        case (true, nil): throw .invalidKey(what: "pre-shared key", reason: "\(pattern.name) needs one")
        case (false, _?): throw .invalidKey(what: "pre-shared key", reason: "\(pattern.name) takes none")
        case let (true, key?) where key.count != 32:
            throw .invalidKey(what: "pre-shared key", reason: "must be 32 bytes, not \(key.count)")
        default: break
        }
        self.role = role
        self.pattern = pattern
        self.staticKey = staticKey
        self.presharedKey = presharedKey
        fixedEphemeralKey = ephemeralKey
        symmetric = NoiseSymmetricState(protocolName: pattern.protocolName)
        symmetric.mixHash(prologue)
    }

    /// Replaces the PSK before its token is processed: a responder that accepts several keys
    /// (a space's current and previous secrets, pending invitations) tries each on a copy of the
    /// state. The key must be 32 bytes; the pattern must take one.
    package mutating func replacePresharedKey(_ key: [UInt8]) {
        precondition(key.count == 32 && presharedKey != nil, "a 32-byte PSK replaces a PSK")
        presharedKey = key
    }

    /// Whether every message of the pattern has been written or read.
    package var isComplete: Bool { failure == nil && messageIndex == pattern.messages.count }

    /// Whether the next step is `writeMessage` (else `readMessage`), while the handshake runs.
    package var isOurTurn: Bool { (messageIndex % 2 == 0) == (role == .initiator) }

    /// h: the handshake hash so far; after the last message, the channel-binding value.
    package var handshakeHash: [UInt8] { symmetric.handshakeHash }

    /// This side's static public key.
    package var localStaticKey: X25519.PublicKey { staticKey.publicKey }

    /// The next handshake message, carrying `payload` (encrypted once a key is mixed in).
    ///
    /// Throws `outOfTurn` when a message is due from the peer, `handshakeNotInProgress` after the
    /// last message, `messageTooLong` past 65,535 bytes, `invalidRemoteKey` for a small-order peer key.
    /// - Complexity: O(*n*) in the payload, plus at most two X25519 operations.
    package mutating func writeMessage(payload: [UInt8] = []) throws(NoiseError) -> [UInt8] {
        try checkOpen()
        guard messageIndex < pattern.messages.count else { throw .handshakeNotInProgress }
        guard isOurTurn else { throw .outOfTurn }
        do throws(NoiseError) {
            var message: [UInt8] = []
            for token in pattern.messages[messageIndex] {
                switch token {
                case .e:
                    let ephemeral = fixedEphemeralKey ?? X25519.PrivateKey()
                    ephemeralKey = ephemeral
                    message += ephemeral.publicKey.rawRepresentation
                    symmetric.mixHash(ephemeral.publicKey.rawRepresentation)
                    if pattern.usesPresharedKey { symmetric.mixKey(ephemeral.publicKey.rawRepresentation) }
                case .s:
                    message += try symmetric.encryptAndHash(staticKey.publicKey.rawRepresentation)
                case .psk:
                    symmetric.mixKeyAndHash(presharedKey ?? [])
                case .ee, .es, .se, .ss:
                    try mixDiffieHellman(token)
                }
            }
            message += try symmetric.encryptAndHash(payload)
            guard message.count <= Self.maxMessageByteCount else { throw .messageTooLong(length: message.count) }
            messageIndex += 1
            return message
        } catch {
            throw close(error)
        }
    }

    /// The payload of the peer's next handshake message `message`, after checking it.
    ///
    /// Throws `authenticationFailed` if any encrypted part fails its tag (a flipped bit, another
    /// PSK, another prologue), `messageTooShort`/`messageTooLong` for a bad length, `outOfTurn`,
    /// `handshakeNotInProgress`, `invalidRemoteKey`. Any error closes the handshake.
    /// - Complexity: O(*n*) in the message, plus at most two X25519 operations.
    package mutating func readMessage(_ message: [UInt8]) throws(NoiseError) -> [UInt8] {
        try checkOpen()
        guard messageIndex < pattern.messages.count else { throw .handshakeNotInProgress }
        guard !isOurTurn else { throw .outOfTurn }
        do throws(NoiseError) {
            guard message.count <= Self.maxMessageByteCount else { throw .messageTooLong(length: message.count) }
            var offset = 0
            func take(_ count: Int) throws(NoiseError) -> [UInt8] {
                guard message.count - offset >= count else {
                    throw .messageTooShort(handshakeMessage: messageIndex, length: message.count, needed: offset + count)
                }
                defer { offset += count }
                return Array(message[offset..<(offset + count)])
            }
            for token in pattern.messages[messageIndex] {
                switch token {
                case .e:
                    let bytes = try take(X25519.byteCount)
                    remoteEphemeralKey = X25519.PublicKey(unchecked: bytes)
                    symmetric.mixHash(bytes)
                    if pattern.usesPresharedKey { symmetric.mixKey(bytes) }
                case .s:
                    let sealed = try take(X25519.byteCount + (symmetric.cipher.hasKey ? NoiseCipherState.tagByteCount : 0))
                    remoteStaticKey = X25519.PublicKey(unchecked: try symmetric.decryptAndHash(sealed, handshakeMessage: messageIndex))
                case .psk:
                    symmetric.mixKeyAndHash(presharedKey ?? [])
                case .ee, .es, .se, .ss:
                    try mixDiffieHellman(token)
                }
            }
            let rest = Array(message[offset...])
            if symmetric.cipher.hasKey && rest.count < NoiseCipherState.tagByteCount {
                throw .messageTooShort(handshakeMessage: messageIndex, length: message.count,
                                                 needed: offset + NoiseCipherState.tagByteCount)
            }
            let payload = try symmetric.decryptAndHash(rest, handshakeMessage: messageIndex)
            messageIndex += 1
            return payload
        } catch {
            throw close(error)
        }
    }

    /// The transport pair, once the last message is written or read (Split).
    ///
    /// Throws `handshakeIncomplete` before that, `closed` after an error.
    package func transport() throws(NoiseError) -> NoiseTransport {
        try checkOpen()
        guard messageIndex == pattern.messages.count, let remoteStaticKey else { throw .handshakeIncomplete }
        let (initiatorToResponder, responderToInitiator) = symmetric.split()
        return NoiseTransport(
            sending: role == .initiator ? initiatorToResponder : responderToInitiator,
            receiving: role == .initiator ? responderToInitiator : initiatorToResponder,
            handshakeHash: symmetric.handshakeHash,
            localStaticKey: staticKey.publicKey,
            remoteStaticKey: remoteStaticKey
        )
    }

    /// MixKey(DH(...)) for a DH token, with the keys the token and this role name (spec 5.3).
    private mutating func mixDiffieHellman(_ token: NoiseHandshakePattern.Token) throws(NoiseError) {
        let initiator = role == .initiator
        let local: X25519.PrivateKey?
        let remote: X25519.PublicKey?
        switch token {
        case .ee: (local, remote) = (ephemeralKey, remoteEphemeralKey)
        case .es: (local, remote) = initiator ? (ephemeralKey, remoteStaticKey) : (staticKey, remoteEphemeralKey)
        case .se: (local, remote) = initiator ? (staticKey, remoteEphemeralKey) : (ephemeralKey, remoteStaticKey)
        default: (local, remote) = (staticKey, remoteStaticKey)
        }
        // The patterns above always have both keys by the time of a DH token.
        guard let local, let remote else { throw .handshakeIncomplete }
        do {
            symmetric.mixKey(try local.sharedSecret(with: remote))
        } catch {
            throw .invalidRemoteKey
        }
    }

    /// Throws `closed` if an earlier error closed the handshake.
    private func checkOpen() throws(NoiseError) {
        if let failure { throw .closed(cause: failure.errorDescription ?? "\(failure)") }
    }

    /// Records `error` as the failure that closes the handshake, and returns it to throw.
    private mutating func close(_ error: NoiseError) -> NoiseError {
        failure = error
        return error
    }
}
