import Foundation
import GalleryModel

/// The node's group commit: ops applied on the node's loop are handed here in the order applied,
/// and stored off the loop by one writer thread, every op waiting at once in one `OpStore.store`
/// (one fsync covers them all). After each stored batch it reports how many of the replica's ops
/// are durable; the node sends ops to peers and acknowledges commands only up to there.
///
/// When storing fails the writer reports the failure, keeps the batch (with everything submitted
/// meanwhile) and tries again every `retryInterval` until it works or the writer stops.
// unchecked Sendable: its mutable state is under `condition`; the writer thread and the inbox meet there
final class GroupCommit: @unchecked Sendable {
    /// What the writer tells the node, on the writer's thread.
    enum Report: Sendable {
        /// The replica's first `count` ops are durable.
        case durable(upTo: Int, stored: Int)
        /// Storing failed; everything not yet durable waits for the next attempt.
        case failed(any Error)
    }

    /// An item of the writer's queue.
    private enum Entry {
        /// Ops applied, with the replica's op count after them.
        case ops([Op], end: Int)
        /// Runs once every op queued before it is durable (true), or at once while storing fails
        /// (false).
        case barrier(@Sendable (Bool) -> Void)
    }

    private let store: any OpStore
    private let retryInterval: TimeInterval
    private let report: @Sendable (Report) -> Void
    /// Runs the durability step (`drain`): on a thread of its own in production.
    private let run: @Sendable (@escaping @Sendable () -> Void) -> Void
    private let condition = NSCondition()
    // Guarded by `condition`.
    private var queue: [Entry] = []
    private var running = false
    private var failing = false
    private var stopping = false
    private var stored = 0

    /// Batches stored (one fsync each, for an `OpStore` that syncs once per call).
    var batches: Int {
        condition.withLock { stored }
    }

    /// Creates a writer; `report` is called on its thread after every attempt.
    init(store: any OpStore, retryInterval: TimeInterval,
         run: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void = { step in Thread.detachNewThread { step() } },
         report: @escaping @Sendable (Report) -> Void) {
        self.store = store
        self.run = run
        self.retryInterval = retryInterval
        self.report = report
    }

    /// Queues applied ops; `end` is the replica's op count after them.
    func submit(_ ops: [Op], end: Int) {
        guard !ops.isEmpty else { return }
        enqueue(.ops(ops, end: end))
    }

    /// Runs `body` on the writer once everything queued before is durable; with false at once
    /// while storing fails.
    func barrier(_ body: @escaping @Sendable (Bool) -> Void) {
        let now = condition.withLock { failing }
        if now { body(false) } else { enqueue(.barrier(body)) }
    }

    /// Stops retrying; returns once the writer is idle (a batch being stored is finished). Ops
    /// and barriers queued afterwards are still stored and run, but not retried.
    func stop() {
        condition.withLock {
            stopping = true
            condition.broadcast()
            while running { condition.wait() }
        }
    }

    private func enqueue(_ entry: Entry) {
        condition.withLock {
            queue.append(entry)
            guard !running else { return }
            running = true
            run { [self] in drain() }
        }
    }

    /// Stores until the queue is empty; the thread ends then.
    private func drain() {
        Thread.current.name = "group-commit"
        while true {
            let taken = condition.withLock { () -> [Entry]? in
                if queue.isEmpty || (failing && stopping) {
                    running = false
                    condition.broadcast()
                    return nil
                }
                let entries = queue
                queue.removeAll()
                return entries
            }
            guard let taken else { return }
            var pending: [Op] = []
            var end = 0
            for entry in taken {
                switch entry {
                case .ops(let ops, let last):
                    pending += ops
                    end = last
                case .barrier(let body):
                    if !pending.isEmpty {
                        guard commit(pending, end: end) else {
                            body(false)
                            continue
                        }
                        pending = []
                    }
                    body(true)
                }
            }
            if !pending.isEmpty { _ = commit(pending, end: end) }
        }
    }

    /// Stores one batch, retrying while it fails until it works or the writer stops; true when
    /// stored. Barriers queued while it fails are answered false at once.
    private func commit(_ ops: [Op], end: Int) -> Bool {
        var ops = ops
        var end = end
        while true {
            do {
                try store.store(ops)
                condition.withLock {
                    stored += 1
                    failing = false
                }
                report(.durable(upTo: end, stored: ops.count))
                return true
            } catch {
                report(.failed(error))
            }
            let (more, barriers, stop) = condition.withLock { () -> ([Entry], [@Sendable (Bool) -> Void], Bool) in
                failing = true
                let deadline = Date().addingTimeInterval(retryInterval)
                while !stopping && condition.wait(until: deadline) {}
                var more: [Entry] = []
                var barriers: [@Sendable (Bool) -> Void] = []
                for entry in queue {
                    if case .barrier(let body) = entry { barriers.append(body) } else { more.append(entry) }
                }
                queue.removeAll()
                return (more, barriers, stopping)
            }
            for body in barriers { body(false) }
            // Ops applied meanwhile join the retry: still one store for all that waits.
            for case .ops(let extra, let last) in more {
                ops += extra
                end = last
            }
            if stop { return false }
        }
    }
}
