/// The result of a finished Noise handshake: one CipherState per direction, the handshake hash for
/// channel binding, and both static public keys.
///
/// Records are sealed with ad = empty and nonce = the direction's counter (spec 5.1 and 5.2), so
/// a record dropped, replayed, reordered, cut or injected fails `open`. **Fails closed:** the first
/// error (tag mismatch, short record, nonce exhaustion) closes both directions for good; every later
/// call throws `NoiseError.closed`. A class, not a struct, so the nonce counters cannot be copied
/// and reused; not `Sendable`: one owner (the connection) drives it.
package final class NoiseTransport {
    /// The handshake hash h after the last message: the same on both sides, unique to the session.
    package let handshakeHash: [UInt8]
    /// This side's static public key.
    package let localStaticKey: X25519.PublicKey
    /// The peer's static public key, authenticated by the handshake.
    package let remoteStaticKey: X25519.PublicKey

    /// Seals this side's records.
    private var sending: NoiseCipherState
    /// Opens the peer's records.
    private var receiving: NoiseCipherState
    /// The first error, which closed the transport.
    private var failure: NoiseError?

    /// The largest plaintext of one record (65,535 - 16 bytes).
    package static let maxPlaintextByteCount = NoiseHandshakeState.maxMessageByteCount - NoiseCipherState.tagByteCount

    /// A transport from Split's cipher states.
    init(sending: NoiseCipherState, receiving: NoiseCipherState, handshakeHash: [UInt8],
         localStaticKey: X25519.PublicKey, remoteStaticKey: X25519.PublicKey) {
        self.sending = sending
        self.receiving = receiving
        self.handshakeHash = handshakeHash
        self.localStaticKey = localStaticKey
        self.remoteStaticKey = remoteStaticKey
    }

    /// The number of records sealed so far (the next sending nonce).
    package var sentCount: UInt64 { sending.nonce }
    /// The number of records opened so far (the next receiving nonce).
    package var receivedCount: UInt64 { receiving.nonce }
    /// Whether an error has closed the transport.
    package var isClosed: Bool { failure != nil }

    /// `plaintext` sealed as the next record (16 bytes longer).
    ///
    /// Throws `messageTooLong` past `maxPlaintextByteCount` (the transport stays open: nothing was
    /// sent), `nonceExhausted` (closes), `closed`.
    /// - Complexity: O(*n*).
    package func seal(_ plaintext: [UInt8]) throws(NoiseError) -> [UInt8] {
        try checkOpen()
        guard plaintext.count <= Self.maxPlaintextByteCount else { throw .messageTooLong(length: plaintext.count) }
        do throws(NoiseError) {
            return try sending.encrypt(plaintext, authenticating: [])
        } catch {
            throw close(error)
        }
    }

    /// The plaintext of the peer's next record.
    ///
    /// Throws `authenticationFailed(handshakeMessage: nil)` for a record altered, replayed,
    /// reordered or injected, `messageTooShort` for fewer than 16 bytes, `messageTooLong` past
    /// 65,535, `nonceExhausted`; each closes the transport. `closed` after that.
    /// - Complexity: O(*n*).
    package func open(_ record: [UInt8]) throws(NoiseError) -> [UInt8] {
        try checkOpen()
        do throws(NoiseError) {
            guard record.count <= NoiseHandshakeState.maxMessageByteCount else {
                throw NoiseError.messageTooLong(length: record.count)
            }
            return try receiving.decrypt(record, authenticating: [])
        } catch {
            throw close(error)
        }
    }

    /// Rekey() of the sending direction; the peer calls `rekeyReceiving()` at the same record.
    package func rekeySending() {
        sending.rekey()
    }

    /// Rekey() of the receiving direction; the peer calls `rekeySending()` at the same record.
    package func rekeyReceiving() {
        receiving.rekey()
    }

    /// The two cipher states, for a caller that seals on one thread and opens on another (a
    /// socket's writer and reader): each is then owned by one thread, and this transport must not
    /// be used again (its copies would reuse nonces). The record layer of GalleryWire does this.
    package func detachCipherStates() -> (sending: NoiseCipherState, receiving: NoiseCipherState) {
        let states = (sending, receiving)
        failure = .closed(cause: "its cipher states were detached")
        return states
    }

    /// Sets both nonces (tests of exhaustion only).
    func setNonces(sending sendingNonce: UInt64, receiving receivingNonce: UInt64) {
        sending.setNonce(sendingNonce)
        receiving.setNonce(receivingNonce)
    }

    /// Throws `closed` if an earlier error closed the transport.
    private func checkOpen() throws(NoiseError) {
        if let failure { throw .closed(cause: failure.errorDescription ?? "\(failure)") }
    }

    /// Records `error` as the failure that closes the transport, and returns it to throw.
    private func close(_ error: NoiseError) -> NoiseError {
        failure = error
        return error
    }
}
