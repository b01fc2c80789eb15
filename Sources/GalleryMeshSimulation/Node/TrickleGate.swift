import Synchronization

/// The trickling root's choice (`MeshParameters.Sabotage.trickleRoot`): on each link, one frame
/// of ops passes per `interval` (the first asked for after it), the others are withheld, so
/// that no child goes `ParentWatch.silence` without an op from it while ops are made.
/// Deterministic: the simulation asks on one thread, in the scheduler's order.
final class TrickleGate: Sendable {
    /// How long after a frame passes on a link the next may (nanoseconds).
    let interval: UInt64
    /// When a frame last passed, by link.
    private let passed = Mutex<[Int: UInt64]>([:])

    init(interval: UInt64) {
        self.interval = interval
    }

    /// Whether the frame of ops about to go on `link` at `now` is withheld.
    func withholds(on link: Int, now: UInt64) -> Bool {
        passed.withLock { passed in
            if let last = passed[link], now &- last < interval { return true }
            passed[link] = now
            return false
        }
    }
}
