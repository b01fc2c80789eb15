/// The error code of an `error` or `fetch_error` frame (protocol.md, "Error codes").
///
/// Codes this version does not know are kept as they are, so that a frame re-encodes to the same
/// bytes; they are treated as `protocolError`.
package struct ErrorCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    package var rawValue: UInt16

    package init(rawValue: UInt16) {
        self.rawValue = rawValue
    }

    /// A malformed frame, or a frame not allowed in the connection's state.
    package static let protocolError = ErrorCode(rawValue: 1)
    /// No protocol version in common.
    package static let unsupportedVersion = ErrorCode(rawValue: 2)
    /// The peer does not prove knowledge of the shared secret.
    package static let authFailed = ErrorCode(rawValue: 3)
    /// A frame longer than the receiver's declared limit.
    package static let frameTooLarge = ErrorCode(rawValue: 4)
    /// A frame type the receiver does not know, without the ignorable flag.
    package static let unknownFrameType = ErrorCode(rawValue: 5)
    /// Nothing was received for longer than the liveness timeout.
    package static let timeout = ErrorCode(rawValue: 6)
    /// The peer does not read fast enough: its outbound queue overflowed.
    package static let slowPeer = ErrorCode(rawValue: 7)
    /// The sender is shutting down.
    package static let shuttingDown = ErrorCode(rawValue: 8)
    /// The peer sent an op that no correct replica can produce.
    package static let rejectedOp = ErrorCode(rawValue: 9)
    /// The peer is this node itself (same replica ID), or already connected.
    package static let duplicateConnection = ErrorCode(rawValue: 10)
    /// An unexpected failure inside the sender.
    package static let internalError = ErrorCode(rawValue: 11)
    /// A fetched blob is not held by the sender.
    package static let notFound = ErrorCode(rawValue: 12)
    /// A fetch was cancelled.
    package static let cancelled = ErrorCode(rawValue: 13)
    /// The peer sent an op under an ID the receiver holds with other content: two versions of one
    /// op ID exist in the space (a damaged or forged log, a reused ID). Nothing of it is applied.
    package static let divergentOp = ErrorCode(rawValue: 14)
    /// A sealed record that fails authentication: the link changed, dropped, replayed, reordered
    /// or injected records (version 2: a frame whose checksum does not match).
    package static let corruptFrame = ErrorCode(rawValue: 15)
    /// The dialed node presented another static key than the one it had before (an impostor on
    /// its address, or a node whose key file was replaced).
    package static let identityMismatch = ErrorCode(rawValue: 16)
    /// An op its replica's key did not sign, or under a replica ID bound to another key: a member
    /// forging another's ops (protocol.md, "Signed ops").
    package static let forgedOp = ErrorCode(rawValue: 17)

    /// Every code this version defines.
    package static let allCases: [ErrorCode] = [
        .protocolError, .unsupportedVersion, .authFailed, .frameTooLarge, .unknownFrameType, .timeout, .slowPeer,
        .shuttingDown, .rejectedOp, .duplicateConnection, .internalError, .notFound, .cancelled, .divergentOp, .corruptFrame,
        .identityMismatch, .forgedOp,
    ]

    /// Whether this version defines the code.
    package var isKnown: Bool { Self.allCases.contains(self) }

    /// The snake_case name used in protocol.md and logs, or `code_N` for an unknown code.
    package var description: String {
        switch self {
        case .protocolError: "protocol_error"
        case .unsupportedVersion: "unsupported_version"
        case .authFailed: "auth_failed"
        case .frameTooLarge: "frame_too_large"
        case .unknownFrameType: "unknown_frame_type"
        case .timeout: "timeout"
        case .slowPeer: "slow_peer"
        case .shuttingDown: "shutting_down"
        case .rejectedOp: "rejected_op"
        case .duplicateConnection: "duplicate_connection"
        case .internalError: "internal_error"
        case .notFound: "not_found"
        case .cancelled: "cancelled"
        case .divergentOp: "divergent_op"
        case .corruptFrame: "corrupt_frame"
        case .identityMismatch: "identity_mismatch"
        case .forgedOp: "forged_op"
        default: "code_\(rawValue)"
        }
    }
}
