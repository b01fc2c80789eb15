import Foundation

/// Why a node could not start on its directory.
package enum ServerError: Error, Hashable, Sendable, LocalizedError {
    /// Another node serves this directory (its lock file is held).
    case alreadyRunning(String)
    /// The shared secret cannot be read or written.
    case secret(String)
    /// The replica ID file is not a 16-digit hex replica ID.
    case corruptReplicaFile(String)
    /// The node's key file exists but is damaged: the node does not start, nor replace it.
    case corruptNodeKey(path: String, reason: String)
    /// A file of the directory cannot be read or written.
    case io(String)

    package var errorDescription: String? {
        switch self {
        case .alreadyRunning(let path): "another node is already serving \(path)"
        case .secret(let reason): "secret: \(reason)"
        case .corruptReplicaFile(let path): "\(path) does not hold a replica ID"
        case let .corruptNodeKey(path, reason):
            "\(path) is corrupt (\(reason)); the node does not replace it by itself: move it away to give this node "
                + "a new identity (its peers will see a new node ID)"
        case .io(let reason): reason
        }
    }
}
