import GalleryModel

/// A command that nobody waits for: what the node's workers run, since the mirror's fsync that
/// durability waits for runs on the same workers (a worker waiting for durability could wait for
/// itself).
extension SyncNode {
    /// Runs `command` on the replica (on the node's loop) without waiting, then calls `completion`
    /// on `executor` once the ops it made are durable, with the command's result, or
    /// `SyncNodeError.storageUnavailable` / `.notDurable` as `perform` throws them.
    package func perform<Result: Sendable>(
        _ command: @escaping @Sendable (inout Replica) throws -> Result, then executor: any NodeExecutor,
        _ completion: @escaping @Sendable (Swift.Result<Result, any Error>) -> Void
    ) {
        loop.async { [self] in
            if let storageFault {
                executor.async { completion(.failure(SyncNodeError.storageUnavailable(storageFault))) }
                return
            }
            let before = replica.opCount
            let outcome = Swift.Result { try command(&replica) }
            let made = replica.opCount - before
            guard made > 0, let ticket = applied(replica.lastOps(made), source: nil, waits: true) else {
                executor.async { completion(outcome) }
                return
            }
            ticket.whenDone { failure in
                executor.async {
                    if let failure, case .success = outcome {
                        completion(.failure(SyncNodeError.notDurable(failure)))
                    } else {
                        completion(outcome)
                    }
                }
            }
        }
    }
}
