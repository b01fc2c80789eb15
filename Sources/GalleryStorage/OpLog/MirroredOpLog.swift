import Dispatch
import Foundation
import GalleryIO
import GalleryModel
import Synchronization

/// The node's record log kept twice: `oplog` and its mirror `oplog.mirror`, two files with the same
/// bytes, so that a damaged byte in one is read back from the other at start (`open`, in
/// `MirroredOpLog+Recovery`).
///
/// Every batch is encoded once and written at the same offset of both files; `sync()` fsyncs both
/// at once, the mirror's on another thread (the node's workers once the host says so), and returns when both are durable: the latency of
/// about one fsync, since the two files' flushes go to the device together. If a write or an fsync
/// of either fails, both files are cut back to where both were last synced, so that the next attempt
/// writes the same records at the same place in both and they stay byte for byte the same.
/// Checkpoints cut or rewrite both, the log first.
///
/// Without a mirror (`mirror` nil: benchmarks comparing the cost) it is the log alone.
///
/// Every change to the files is made holding `state`'s lock: a checkpoint's rewrite on its thread
/// never falls between the writer's changes to the two files, so both change in the same order.
package final class MirroredOpLog: Sendable {
    /// Where the mirror's fsyncs run, and where both files ended at their last common sync.
    private struct State {
        /// Runs a mirror's fsync on another thread; nil: on `mirrorQueue`.
        var runBeside: (@Sendable (@escaping @Sendable () -> Void) -> Void)?
        var lastSynced: (byteCount: Int, records: Int, ops: Int)
    }

    /// The record log, `oplog`.
    let primary: OpLogFile
    /// Its copy, `oplog.mirror`, or nil when the log is kept once.
    let mirror: OpLogFile?
    /// Where the mirror's fsyncs run, beside the log's: a queue of its own until the host hands
    /// the log the node's workers (`runMirrorSyncs(on:)`), so that the node's threads stay few.
    private let mirrorQueue = DispatchQueue(label: "oplog-mirror-sync")
    private let state: Mutex<State>

    /// Wraps two open files that hold the same bytes (or one file alone).
    init(primary: OpLogFile, mirror: OpLogFile?) {
        assert(mirror == nil || mirror?.byteCount == primary.byteCount, "a mirror holds the log's bytes")
        self.primary = primary
        self.mirror = mirror
        self.state = Mutex(State(runBeside: nil, lastSynced: primary.position))
    }

    /// The log's length up to its last record.
    package var byteCount: Int { primary.byteCount }
    /// Records in the log.
    package var recordCount: Int { primary.recordCount }
    /// The log's fsyncs since it was opened (the mirror's run beside them and are not counted).
    package var syncCount: Int { primary.syncCount }
    /// The mirror's fsyncs since it was opened, 0 without a mirror.
    package var mirrorSyncCount: Int { mirror?.syncCount ?? 0 }
    /// Where the log ends now: its length, records and ops.
    var position: (byteCount: Int, records: Int, ops: Int) { primary.position }
    /// Ops in the log.
    var opCount: Int { primary.opCount }

    /// Appends one record per op to both files (the same bytes, encoded once); durable only after
    /// `sync()`. If either write fails, neither file keeps any of the batch.
    func append(_ ops: [Op]) throws(StorageError) {
        guard !ops.isEmpty else { return }
        let bytes = try OpLogFile.encodeRecords(ops)
        try state.withLock { _ throws(StorageError) in
            let before = primary.position
            try primary.append(encoded: bytes, records: ops.count, ops: ops.count)
            guard let mirror else { return }
            do throws(StorageError) {
                try mirror.append(encoded: bytes, records: ops.count, ops: ops.count)
            } catch {
                try? primary.cut(to: before)
                throw error
            }
        }
    }

    /// Runs the mirror's fsyncs with `run` (the node's workers) from now on. Whatever `run` runs
    /// on must never wait for this log's `sync` (it would wait for itself).
    package func runMirrorSyncs(on run: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void) {
        state.withLock { $0.runBeside = run }
    }

    /// Fsyncs both files at once and returns when both are durable. On a failure of either, both
    /// are cut back to their last common sync and the error is thrown.
    func sync() throws(StorageError) {
        try state.withLock { state throws(StorageError) in try sync(&state) }
    }

    /// `sync()` with the lock held.
    private func sync(_ state: inout State) throws(StorageError) {
        guard let mirror else { return try primary.sync() }
        let outcome = MirrorSyncOutcome()
        let group = DispatchGroup()
        let syncMirror: @Sendable () -> Void = {
            do throws(StorageError) {
                try mirror.sync()
            } catch {
                outcome.fail(error)
            }
        }
        if let runBeside = state.runBeside {
            group.enter()
            runBeside {
                syncMirror()
                group.leave()
            }
        } else {
            mirrorQueue.async(group: group, execute: syncMirror)
        }
        var failure: StorageError?
        do {
            try primary.sync()
        } catch {
            failure = error
        }
        group.wait()
        if let error = failure ?? outcome.error {
            try? primary.cut(to: state.lastSynced)
            try? mirror.cut(to: state.lastSynced)
            throw error
        }
        state.lastSynced = primary.position
        assert(mirror.byteCount == state.lastSynced.byteCount, "the mirror stays the log's copy")
    }

    /// Appends and fsyncs both files.
    func appendAndSync(_ ops: [Op]) throws(StorageError) {
        try append(ops)
        try sync()
    }

    /// Drops the first `count` records (ending at `offset`) from both files, the log first
    /// (`OpLogFile.discardRecords`): a crash between the two leaves the mirror holding records the
    /// log no longer has, ops of the compacted file that the next start finds there again.
    func discardRecords(upTo offset: Int, count: Int, opCount: Int) throws(StorageError) {
        try state.withLock { state throws(StorageError) in
            try primary.discardRecords(upTo: offset, count: count, opCount: opCount)
            try mirror?.discardRecords(upTo: offset, count: count, opCount: opCount)
            state.lastSynced = primary.position
        }
    }

    /// Replaces both files by ones holding exactly `ops`, the log first.
    func replaceRecords(with ops: [Op]) throws(StorageError) {
        try state.withLock { state throws(StorageError) in
            try primary.replaceRecords(with: ops)
            try mirror?.replaceRecords(with: ops)
            state.lastSynced = primary.position
        }
    }

    /// Syncs what is pending and closes both files.
    func close() throws(StorageError) {
        try state.withLock { _ throws(StorageError) in
            defer { try? mirror?.close() }
            try primary.close()
        }
    }
}

/// The mirror's fsync result, handed from its queue to the writer (`DispatchGroup.wait` orders
/// the two; the lock lets the compiler check it).
private final class MirrorSyncOutcome: Sendable {
    private let failure = Mutex<StorageError?>(nil)

    func fail(_ error: StorageError) {
        failure.withLock { $0 = error }
    }

    var error: StorageError? {
        failure.withLock { $0 }
    }
}
