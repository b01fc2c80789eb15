/// A serial executor: jobs run one at a time, in the order queued. The node's inbox
/// (`SyncNode.loop`) is one: a `WorkThread` in production, a lane of a simulation scheduler in
/// `GalleryMeshSimulation` (one thread for every node, driven one job at a time).
package protocol NodeExecutor: AnyObject, Sendable {
    /// Whether the caller runs on the executor (then `sync` runs its body in place).
    var isCurrent: Bool { get }
    /// Queues a job.
    func async(_ job: @escaping @Sendable () -> Void)
    /// Runs `body` on the executor and returns its result (`sync`).
    func runAndWait<T>(_ body: () throws -> T) throws -> T
}

extension NodeExecutor {
    /// Runs `body` on the executor and returns its result.
    package func sync<T>(_ body: () throws -> T) throws -> T {
        try runAndWait(body)
    }

    /// Runs `body` on the executor and returns its result (non-throwing form).
    package func sync<T>(_ body: () -> T) -> T {
        // The throwing form throws only what `body` throws.
        // swiftlint:disable:next force_try
        try! runAndWait { () throws -> T in body() }
    }

    /// Waits until every job queued before this call has run.
    package func drain() {
        sync {}
    }
}

extension WorkThread: NodeExecutor {
    func runAndWait<T>(_ body: () throws -> T) throws -> T {
        try sync(body)
    }
}
