import Foundation
import GalleryCrypto

/// The receiving half of the record layer: opens each `record` frame with the peer's key and the
/// next nonce, and cuts the plaintext stream into the frames it carries (a frame may span records,
/// a record may hold several frames).
///
/// Fails closed: a record that does not open (changed, dropped, replayed, reordered, injected, or
/// sealed under another key) throws, and every later call throws too.
package struct RecordOpener: Sendable {
    /// The largest record: Noise's 65,535-byte message.
    package static let maximumRecord = NoiseHandshakeState.maxMessageByteCount

    private var cipher: NoiseCipherState
    private var frames: FrameDecoder
    private var failure: SecureChannelError?
    /// Records per key (the peer's `RecordSealer.rekeyInterval`).
    package let rekeyInterval: UInt64

    /// An opener on `cipher` (the receiving state of a `HandshakeResult`), accepting inner frames
    /// of up to `maximumPayload` bytes.
    package init(_ cipher: NoiseCipherState, maximumPayload: Int, rekeyInterval: UInt64 = RecordSealer.defaultRekeyInterval) {
        self.cipher = cipher
        self.frames = FrameDecoder(maximumPayload: maximumPayload)
        self.rekeyInterval = max(rekeyInterval, 1)
    }

    /// Records opened so far.
    package var count: UInt64 { cipher.nonce }

    /// Bytes of an unfinished frame waiting for the next record.
    package var bufferedCount: Int { frames.bufferedCount }

    /// The frames completed by the record whose ciphertext is `ciphertext`.
    ///
    /// - Throws: `SecureChannelError.recordRejected` for a record that does not open,
    ///   `.innerFrame` for a frame inside that is malformed or too large.
    package mutating func open(_ ciphertext: [UInt8]) throws(SecureChannelError) -> [Frame] {
        if let failure { throw failure }
        do throws(SecureChannelError) {
            let number = cipher.nonce
            // Opened in place, in the decoder's buffer: the ciphertext is copied there once, its
            // tag checked, and only then decrypted where it lies (nothing kept if it does not open).
            var rejection: NoiseError?
            var cipher = self.cipher
            if ciphertext.isEmpty {
                do throws(NoiseError) { _ = try cipher.decrypt(ciphertext, authenticating: []) } catch { rejection = error }
            } else {
                ciphertext.withUnsafeBytes { bytes in
                    frames.append(bytes) { record in
                        do throws(NoiseError) {
                            return try cipher.decrypt(UnsafeRawBufferPointer(record), into: record.baseAddress!)
                        } catch {
                            rejection = error
                            return 0
                        }
                    }
                }
            }
            if let rejection {
                throw .recordRejected(number: number, reason: rejection.errorDescription ?? "\(rejection)")
            }
            if cipher.nonce % rekeyInterval == 0 { cipher.rekey() }
            self.cipher = cipher
            var completed: [Frame] = []
            do {
                while let frame = try frames.next() { completed.append(frame) }
            } catch {
                throw .innerFrame(error)
            }
            return completed
        } catch {
            failure = error
            throw error
        }
    }
}

/// Why the sealed channel of a connection ended.
package enum SecureChannelError: Error, Equatable, Sendable, LocalizedError {
    /// Record `number` (from 0) did not open under the peer's key and that nonce.
    case recordRejected(number: UInt64, reason: String)
    /// A frame inside the records is malformed or too large.
    case innerFrame(WireError)
    /// A frame other than `record` after the handshake (an `error` in the clear included, once
    /// the peer's first record has arrived).
    case unsealedFrame(type: UInt8)
    /// The first sealed frame was not `identity`, or `identity` came again.
    case misplacedIdentity(String)

    package var errorDescription: String? {
        switch self {
        case let .recordRejected(number, reason):
            "sealed record \(number) rejected (changed, dropped, replayed, reordered or injected on the link): \(reason)"
        case let .innerFrame(error): "inside a sealed record: \(error.localizedDescription)"
        case let .unsealedFrame(type): "unsealed frame of type \(type) after the handshake (injected on the link?)"
        case let .misplacedIdentity(reason): reason
        }
    }
}
