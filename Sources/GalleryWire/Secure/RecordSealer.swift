import GalleryCrypto

/// The sending half of the record layer (protocol.md, "Records"): the bytes of the frames a side
/// sends after the handshake, cut into pieces of at most `maximumPlaintext` bytes, each sealed with
/// ChaCha20-Poly1305 under this direction's key (nonce = the record's number, no associated data)
/// and sent as a `record` frame.
///
/// Rekey: after every `rekeyInterval` records of a direction (when the nonce reaches a multiple
/// of it), the sender applies Noise's Rekey() to its key, and the receiver to the same key after
/// the same record (`RecordOpener`). Nonces keep counting.
package struct RecordSealer: Sendable {
    /// The largest plaintext of one record: Noise's 65,535-byte message less the 16-byte tag.
    package static let maximumPlaintext = NoiseTransport.maxPlaintextByteCount
    /// The default rekey interval: every 2^16 records (at most 4 GiB under one key).
    package static let defaultRekeyInterval: UInt64 = 1 << 16

    private var cipher: NoiseCipherState
    /// Records per key.
    package let rekeyInterval: UInt64

    /// A sealer on `cipher` (the sending state of a `HandshakeResult`).
    package init(_ cipher: NoiseCipherState, rekeyInterval: UInt64 = defaultRekeyInterval) {
        self.cipher = cipher
        self.rekeyInterval = max(rekeyInterval, 1)
    }

    /// Records sealed so far.
    package var count: UInt64 { cipher.nonce }

    /// `plaintext` (frames, as encoded) as `record` frames, ready to write.
    ///
    /// One output buffer, sized once: each piece is encrypted straight from `plaintext` into its
    /// place after its frame header, its tag after it (no copy of a piece, no array per record).
    /// Throws `NoiseError.nonceExhausted` after 2^64 - 1 records (the connection must end).
    /// - Complexity: O(*n*).
    package mutating func seal(_ plaintext: [UInt8]) throws(NoiseError) -> [UInt8] {
        let pieces = (plaintext.count + Self.maximumPlaintext - 1) / Self.maximumPlaintext
        let capacity = plaintext.count + pieces * (FrameLimits.headerSize + NoiseCipherState.tagByteCount)
        var failure: NoiseError?
        let output = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, count in
            count = 0
            guard let base = buffer.baseAddress.map(UnsafeMutableRawPointer.init) else { return }
            plaintext.withUnsafeBytes { source in
                var start = 0
                while start < source.count {
                    let end = min(start + Self.maximumPlaintext, source.count)
                    let record = base + count
                    let length: Int
                    do throws(NoiseError) {
                        length = try cipher.encrypt(UnsafeRawBufferPointer(rebasing: source[start..<end]),
                                                    into: record + FrameLimits.headerSize)
                    } catch {
                        failure = error
                        return
                    }
                    if cipher.nonce % rekeyInterval == 0 { cipher.rekey() }
                    record.storeBytes(of: UInt32(length).littleEndian, as: UInt32.self)
                    record.storeBytes(of: FrameType.record.rawValue, toByteOffset: 4, as: UInt8.self)
                    record.storeBytes(of: 0, toByteOffset: 5, as: UInt8.self)
                    count += FrameLimits.headerSize + length
                    start = end
                }
            }
        }
        if let failure { throw failure }
        return output
    }
}
