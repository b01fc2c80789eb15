import Foundation

/// Why a sync node refused a local command.
package enum SyncNodeError: Error, Hashable, Sendable, LocalizedError {
    /// The command's ops are applied here but could not be made durable: they are not sent to
    /// any peer, and are stored and sent when storing works again (lost if the node stops first).
    case notDurable(String)
    /// Ops cannot be stored at the moment; the command was refused and changed nothing.
    case storageUnavailable(String)

    package var errorDescription: String? {
        switch self {
        case .notDurable(let reason):
            "\(reason); the change is applied here but not stored: it is stored and sent to peers when "
                + "storing works again, and lost if the node stops first"
        case .storageUnavailable(let reason):
            "\(reason); changes are refused until storing works again (the node retries, and serves reads meanwhile)"
        }
    }
}
