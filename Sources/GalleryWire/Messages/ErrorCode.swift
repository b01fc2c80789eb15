/// The error codes of `error` and `fetchError` frames (protocol.md, "Error codes").
public enum ErrorCode: UInt16, CaseIterable, Sendable, CustomStringConvertible {
    /// A malformed frame, or a frame not allowed in the connection's state.
    case protocolError = 1
    /// No protocol version in common.
    case unsupportedVersion = 2
    /// The peer does not prove knowledge of the shared secret.
    case authFailed = 3
    /// A frame longer than the receiver's declared limit.
    case frameTooLarge = 4
    /// A frame type the receiver does not know, without the ignorable flag.
    case unknownFrameType = 5
    /// Nothing was received for longer than the liveness timeout.
    case timeout = 6
    /// The peer does not read fast enough: its outbound queue overflowed.
    case slowPeer = 7
    /// The sender is shutting down.
    case shuttingDown = 8
    /// The peer sent an op that no correct replica can produce.
    case rejectedOp = 9
    /// The peer is this node itself (same replica ID), or already connected.
    case duplicateConnection = 10
    /// An unexpected failure inside the sender.
    case internalError = 11
    /// A fetched blob is not held by the sender.
    case notFound = 12
    /// A fetch was cancelled.
    case cancelled = 13

    /// The snake_case name used in protocol.md and logs.
    public var description: String {
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
        }
    }
}
