import Dispatch
import Foundation
import GalleryIO
import GalleryModel

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
/// `@unchecked Sendable`: `lastSynced` is guarded by `lock`, and every change to the files is made
/// holding `lock`: a checkpoint's rewrite on its thread never falls between
/// the writer's changes to the two files, so both change in the same order.
package final class MirroredOpLog: @unchecked Sendable {
    /// The record log, `oplog`.
    let primary: OpLogFile
    /// Its copy, `oplog.mirror`, or nil when the log is kept once.
    let mirror: OpLogFile?
    /// Where the mirror's fsyncs run, beside the log's: a queue of its own until the host hands
    /// the log the node's workers (`runMirrorSyncs(on:)`), so that the node's threads stay few.
    private let mirrorQueue = DispatchQueue(label: "oplog-mirror-sync")
    /// Runs a mirror's fsync on another thread; nil: on `mirrorQueue`. Guarded by `lock`.
    private var runBeside: (@Sendable (@escaping @Sendable () -> Void) -> Void)?
    private let lock = NSLock()
    /// Where both files ended at their last common sync.
    private var lastSynced: (byteCount: Int, records: Int, ops: Int)

    /// Wraps two open files that hold the same bytes (or one file alone).
    init(primary: OpLogFile, mirror: OpLogFile?) {
        assert(mirror == nil || mirror?.byteCount == primary.byteCount, "a mirror holds the log's bytes")
        self.primary = primary
        self.mirror = mirror
        self.lastSynced = primary.position
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
        lock.lock()
        defer { lock.unlock() }
        let before = primary.position
        try primary.append(encoded: bytes, records: ops.count, ops: ops.count)
        guard let mirror else { return }
        do {
            try mirror.append(encoded: bytes, records: ops.count, ops: ops.count)
        } catch {
            try? primary.cut(to: before)
            throw error
        }
    }

    /// Runs the mirror's fsyncs with `run` (the node's workers) from now on. Whatever `run` runs
    /// on must never wait for this log's `sync` (it would wait for itself).
    package func runMirrorSyncs(on run: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void) {
        lock.withLock { runBeside = run }
    }

    /// Fsyncs both files at once and returns when both are durable. On a failure of either, both
    /// are cut back to their last common sync and the error is thrown.
    func sync() throws(StorageError) {
        lock.lock()
        defer { lock.unlock() }
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
        if let runBeside {
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
            try? primary.cut(to: lastSynced)
            try? mirror.cut(to: lastSynced)
            throw error
        }
        lastSynced = primary.position
        assert(mirror.byteCount == lastSynced.byteCount, "the mirror stays the log's copy")
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
        lock.lock()
        defer { lock.unlock() }
        try primary.discardRecords(upTo: offset, count: count, opCount: opCount)
        try mirror?.discardRecords(upTo: offset, count: count, opCount: opCount)
        lastSynced = primary.position
    }

    /// Replaces both files by ones holding exactly `ops`, the log first.
    func replaceRecords(with ops: [Op]) throws(StorageError) {
        lock.lock()
        defer { lock.unlock() }
        try primary.replaceRecords(with: ops)
        try mirror?.replaceRecords(with: ops)
        lastSynced = primary.position
    }

    /// Syncs what is pending and closes both files.
    func close() throws(StorageError) {
        lock.lock()
        defer { lock.unlock() }
        defer { try? mirror?.close() }
        try primary.close()
    }
}

/// The mirror's fsync result, handed from its queue to the writer (`DispatchGroup.wait` orders
/// the two; the lock keeps the checker happy).
private final class MirrorSyncOutcome: @unchecked Sendable {
    private let lock = NSLock()
    private var failure: StorageError?

    func fail(_ error: StorageError) {
        lock.withLock { failure = error }
    }

    var error: StorageError? {
        lock.withLock { failure }
    }
}
