import Foundation

/// Why a sync node refused a local command.
public enum SyncNodeError: Error, Hashable, Sendable, LocalizedError {
    /// Applied ops could not be made durable; the node stopped serving peers (fail-stop), since its
    /// replica is ahead of its log and sending on would risk reusing op IDs after a restart.
    case notDurable(String)

    public var errorDescription: String? {
        switch self {
        case .notDurable(let reason): "ops could not be stored, the node stopped: \(reason)"
        }
    }
}
