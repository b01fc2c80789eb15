import Foundation
import GalleryIO
import GalleryModel

/// The node's group commit: ops applied on the node's loop are handed here in the order applied,
/// and stored off the loop by one writer thread, every op waiting at once in one `OpStore.store`
/// (one fsync covers them all). After each stored batch it reports how many of the replica's ops
/// are durable; the node sends ops to peers and acknowledges commands only up to there.
///
/// The writer thread is the node's own and stays parked between batches (`WorkThread`, ended after
/// `writerIdleTimeout` without a batch): a batch costs a wake-up, not a thread started, on the path
/// of every op (a drop's placeholder pays it twice, on the dropping node and on the source).
///
/// When storing fails the writer reports the failure, keeps the batch (with everything submitted
/// meanwhile) and tries again every `retryInterval` until it works or the writer stops.
///
/// The writer thread and the inbox meet in `condition` (a `ConditionLock` around the queue).
final class GroupCommit: Sendable {
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
    /// Runs the durability step (`drain`): on the writer's parked thread in production.
    private let run: @Sendable (@escaping @Sendable () -> Void) -> Void
    /// How long the writer's thread waits parked for the next batch before it ends (a node idle
    /// that long pays one thread start on its next op).
    static let writerIdleTimeout: TimeInterval = 10
    /// What the inbox and the writer share.
    private struct State {
        var queue: [Entry] = []
        var running = false
        var failing = false
        var stopping = false
        var stored = 0

        /// Takes what waits after a failed attempt: the ops (to join the retry) and the barriers
        /// (answered false), and whether the writer stops.
        mutating func takeAfterFailure() -> ([Entry], [@Sendable (Bool) -> Void], Bool) {
            var more: [Entry] = []
            var barriers: [@Sendable (Bool) -> Void] = []
            for entry in queue {
                if case .barrier(let body) = entry { barriers.append(body) } else { more.append(entry) }
            }
            queue.removeAll()
            return (more, barriers, stopping)
        }
    }

    private let condition = ConditionLock(State())

    /// Batches stored (one fsync each, for an `OpStore` that syncs once per call).
    var batches: Int {
        condition.withLock { $0.stored }
    }

    /// Creates a writer; `report` is called on its thread after every attempt. `run` runs each
    /// durability step (a simulation's scheduler); nil: a `WorkThread` of this writer's own.
    init(store: any OpStore, retryInterval: TimeInterval,
         run: (@Sendable (@escaping @Sendable () -> Void) -> Void)? = nil,
         report: @escaping @Sendable (Report) -> Void) {
        self.store = store
        if let run {
            self.run = run
        } else {
            let thread = WorkThread(name: "group-commit", idleTimeout: Self.writerIdleTimeout)
            self.run = { step in thread.async(step) }
        }
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
        let now = condition.withLock { $0.failing }
        if now { body(false) } else { enqueue(.barrier(body)) }
    }

    /// Stops retrying; returns once the writer is idle (a batch being stored is finished). Ops
    /// and barriers queued afterwards are still stored and run, but not retried.
    func stop() {
        condition.withLock { $0.stopping = true }
        condition.broadcast()
        _ = condition.withLock(waitingUntil: nil) { state -> Bool? in state.running ? nil : true }
    }

    private func enqueue(_ entry: Entry) {
        condition.withLock { state in
            state.queue.append(entry)
            guard !state.running else { return }
            state.running = true
            run { [self] in drain() }
        }
    }

    /// Stores until the queue is empty, then returns (the writer's thread parks).
    private func drain() {
        while true {
            let taken = condition.withLock { state -> [Entry]? in
                if state.queue.isEmpty || (state.failing && state.stopping) {
                    state.running = false
                    condition.broadcast()
                    return nil
                }
                let entries = state.queue
                state.queue.removeAll()
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
                condition.withLock { state in
                    state.stored += 1
                    state.failing = false
                }
                report(.durable(upTo: end, stored: ops.count))
                return true
            } catch {
                report(.failed(error))
            }
            // Waits out the retry interval (or until stopped), then takes what waits.
            let deadline = Date().addingTimeInterval(retryInterval)
            condition.withLock { $0.failing = true }
            let waited = condition.withLock(waitingUntil: deadline) { state in
                state.stopping || Date() >= deadline ? state.takeAfterFailure() : nil
            }
            let (more, barriers, stop) = waited ?? condition.withLock { $0.takeAfterFailure() }
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
