import Foundation

/// Why bytes from a peer could not be taken as frames or messages.
package enum WireError: Error, Hashable, Sendable, LocalizedError {
    /// A frame longer than the receiver's declared maximum.
    case frameTooLarge(length: Int, limit: Int)
    /// A frame type this version does not know, without the "may ignore" flag.
    case unknownFrameType(UInt8)
    /// A frame's payload could not be decoded.
    case malformed(String)
    /// A frame that is not allowed in the connection's current state.
    case unexpected(String)
    /// An `ops` frame holding a well-formed op outside the documented bounds of its fields
    /// (`FieldLimits`): no correct replica makes it (answered with `rejected_op`).
    case rejectedOp(String)

    package var errorDescription: String? {
        switch self {
        case .frameTooLarge(let length, let limit): "frame of \(length) bytes exceeds the limit of \(limit)"
        case .unknownFrameType(let type): "unknown frame type \(type)"
        case .malformed(let reason): "malformed frame: \(reason)"
        case .unexpected(let reason): "unexpected frame: \(reason)"
        case .rejectedOp(let reason): "rejected op: \(reason)"
        }
    }
}
