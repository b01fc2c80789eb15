import Foundation

/// Why a Noise handshake or transport refused a message.
///
/// Every failure is one of these, thrown; none traps. After any of them the handshake state or
/// the transport is closed for good ("fails closed"): later calls throw `closed`.
package enum NoiseError: Error, Equatable, Sendable, LocalizedError {
    /// A tag did not match: a handshake message (its index, from 0) or a transport record (nil) was
    /// altered, replayed, reordered, cut, sent under another key, or the peer's PSK differs.
    case authenticationFailed(handshakeMessage: Int?)
    /// A handshake message or record was shorter than its fixed parts (keys, tags) need.
    case messageTooShort(handshakeMessage: Int?, length: Int, needed: Int)
    /// A message or record longer than Noise's 65,535 bytes, or a payload that would make one.
    case messageTooLong(length: Int)
    /// `writeMessage` when it is the peer's turn to send, or `readMessage` when it is ours.
    case outOfTurn
    /// A handshake call after the last message, or `transport()` before it.
    case handshakeNotInProgress
    /// The handshake is not finished yet, so there is no transport.
    case handshakeIncomplete
    /// The nonce counter reached 2^64 - 1: no more messages under this key (rekey or start over).
    case nonceExhausted
    /// The peer's key gave an all-zero Diffie-Hellman result (a point of small order).
    case invalidRemoteKey
    /// A key given to `init` is unfit: `what` and why.
    case invalidKey(what: String, reason: String)
    /// An earlier error closed this handshake or transport; `cause` is that first error's description.
    case closed(cause: String)

    /// A one-line description.
    package var errorDescription: String? {
        switch self {
        case let .authenticationFailed(message?): "Noise handshake message \(message + 1) failed authentication (altered, or a different pre-shared key)"
        case .authenticationFailed(nil): "Noise record failed authentication (altered, replayed, reordered or injected)"
        case let .messageTooShort(message?, length, needed): "Noise handshake message \(message + 1) has \(length) bytes, needs at least \(needed)"
        case let .messageTooShort(nil, length, needed): "Noise record has \(length) bytes, needs at least \(needed)"
        case let .messageTooLong(length): "Noise message of \(length) bytes is over the 65535-byte limit"
        case .outOfTurn: "Noise handshake message out of turn"
        case .handshakeNotInProgress: "Noise handshake is already finished"
        case .handshakeIncomplete: "Noise handshake is not finished"
        case .nonceExhausted: "Noise nonce counter exhausted"
        case .invalidRemoteKey: "Noise peer key has small order (all-zero shared secret)"
        case let .invalidKey(what, reason): "Noise \(what): \(reason)"
        case let .closed(cause): "Noise session closed after an earlier error: \(cause)"
        }
    }
}
