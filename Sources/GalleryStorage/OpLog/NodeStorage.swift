import Foundation
import GalleryIO
import GalleryModel
import Synchronization

/// A node's ops on disk, its replica restored from them at start, and checkpoints that keep the
/// start fast: a snapshot of the state, and the ops moved from the record log to a compact file.
///
/// Four files in the node's directory:
/// - `oplog`, the record log (`OpLogFile`): every applied op is appended and synced there before
///   any peer sees it; and `oplog.mirror`, its copy (`MirroredOpLog`): the same bytes, written and
///   synced with it, from which a record damaged in one file is read back at start.
/// - `ops.compact`, the compacted op file (`OpLogFile.Format.blocks`): ops moved out of the record
///   log, in checksummed blocks of about 1 MiB. Ops are never dropped: peers may still need any of
///   them; only their encoding is compacted.
/// - `snapshot` (`SnapshotFile`): the replica's state after its first N ops, a cache.
///
/// Invariant: in the order the replica applied its ops, `ops.compact` holds the first M, `oplog`
/// the ops from some K <= M on (K < M only after a crash in the middle of a checkpoint: the ops
/// K..<M are then in both files, and `receive` drops the second copy), and the snapshot the
/// first N. Every applied op is in one of the two op files.
///
/// Start: a usable snapshot gives the replica with its first N ops; the first min(N, M) ops of the
/// compact file are checked (length, CRC32) but not decoded; every other op of both files is
/// received. A snapshot that is unusable, or that the op files contradict (an op refused or left
/// waiting), is ignored, and the replica rebuilt from the op files alone.
///
/// Checkpoint (one at a time): between two batches of the node's writer, when every op of the
/// replica is durable and no later one is being appended, copy the replica (N ops) and note where
/// the record log ends; then, while ops are appended again: write the snapshot (temporary file,
/// synced, renamed); append the replica's ops M..<N to the compact file and sync it; rewrite the
/// record log without its records before the noted end (`OpLogFile.discardRecords`). A crash
/// between any two steps leaves the invariant true.
///
/// The files are thread-safe themselves; checkpoints are serialized by `checkpointLock`.
package final class NodeStorage: Sendable {
    /// What the node's writer and the checkpoints count and note.
    private struct Counters {
        var appendedSinceCapture: Int
        var snapshotOps: Int
        /// Why the record log must keep its records (ops of the files that the replica holds back).
        var discardBlocked: String?
        /// Why compaction stopped (the compact file failed); snapshots go on.
        var compactionFailure: String?
        /// Ops that were durable in the op files at start but held for missing dependencies: when
        /// they are released, they are not written again.
        var durableHeld: Set<OpID> = []
    }

    /// What a checkpoint works from, taken between two batches of the node's writer.
    package struct Checkpoint: Sendable {
        /// The replica, every op of which is durable in the op files.
        var replica: Replica
        /// Where the record log ended: its records before this offset hold only ops of `replica`.
        var logOffset: Int
        /// Records before `logOffset`.
        var logRecords: Int
        /// Ops in the records before `logOffset`.
        var logOps: Int
    }

    /// The ops of a compact block: about 1 MiB.
    static let blockBytes = 1 << 20

    let files: NodeDirectory
    /// The record log and its mirror.
    package let recordLog: MirroredOpLog
    /// The compacted op file.
    let compactLog: OpLogFile

    private let counters: Mutex<Counters>
    private let checkpointLock = NSLock()

    /// Wraps opened files; `open` restores the replica.
    private init(files: NodeDirectory, recordLog: MirroredOpLog, compactLog: OpLogFile, appended: Int, snapshotOps: Int) {
        self.files = files
        self.recordLog = recordLog
        self.compactLog = compactLog
        counters = Mutex(Counters(appendedSinceCapture: appended, snapshotOps: snapshotOps))
    }

    // MARK: Start

    /// Opens (creating if needed) the op files of a node directory and restores its replica: from
    /// the snapshot and the ops after it when the snapshot is usable, else from the op files.
    ///
    /// The record log is read with its mirror (`MirroredOpLog.open`): a record damaged in one file
    /// is taken from the other, and both are repaired (`StartupReport.repairs` says what). Damaged
    /// records of the op files are otherwise skipped and every intact record kept (and reported).
    /// Damage in both copies of the log, or in the compacted file, means records may be lost, among them ops of this replica that peers already hold:
    /// before any file is repaired, `renewReplicaID` gives the replica a new ID (a new
    /// incarnation), so that the op IDs it makes from now on were never used; the ops of the old ID
    /// stay those of another replica of the space, and what was lost of them comes back from peers.
    /// The ops of a compacted op file's intact blocks after damage move to the record log before
    /// that file is cut (its ops must stay the first ops the replica applied). Leftover temporary
    /// files of an interrupted checkpoint are removed.
    ///
    /// `mirrored: false` keeps the record log once (benchmarks measuring what the mirror costs).
    package static func open(
        _ files: NodeDirectory, replicaID: ReplicaID, bufferLimit: Int = 100_000, mirrored: Bool = true,
        renewReplicaID: () throws(StorageError) -> ReplicaID = { () throws(StorageError) in ReplicaID(UInt64.random(in: 1...UInt64.max)) }
    ) throws(StorageError) -> (storage: NodeStorage, replica: Replica, report: StartupReport) {
        for url in [files.snapshot, files.opLog, files.opLogMirror] { StorageFile.remove(url.path + ".tmp") }
        var notes: [String] = []
        var replicaID = replicaID
        let original = replicaID
        var renewed = false
        func renew() throws(StorageError) {
            guard !renewed else { return }
            replicaID = try renewReplicaID()
            renewed = true
            notes.append("replica: records were lost, so this node continues as replica \(replicaID) "
                + "(a new incarnation of \(original), whose ops it keeps): no op ID is ever used twice")
        }
        var base: Replica?
        switch SnapshotFile.read(from: files.snapshot, bufferLimit: bufferLimit) {
        case .missing:
            break
        case .loaded(let replica) where replica.id == replicaID:
            base = replica
        case .loaded(let replica):
            notes.append("snapshot: of replica \(replica.id), not \(replicaID); ignored, rebuilding from the op files")
        case .unusable(let reason):
            notes.append("snapshot: \(reason); ignored, rebuilding from the op files")
        }

        let opened = try MirroredOpLog.open(
            at: files.opLog, mirror: mirrored ? files.opLogMirror : nil, beforeRepair: { _ throws(StorageError) in try renew() })
        let (recordLog, logReport) = (opened.log, opened.report)
        var logOps = opened.ops
        notes += opened.repairs
        if renewed, var replica = base {
            // The snapshot holds no op that is not in the files (or lost from them): it stays valid
            // under the new ID.
            do throws(ModelError) {
                try replica.reincarnate(as: replicaID)
                base = replica
            } catch {
                base = nil
            }
        }
        var (compactLog, compactOps, compactReport) = try OpLogFile.open(
            at: files.compactLog, format: .blocks, skipping: base?.opCount ?? 0,
            beforeRepair: { report throws(StorageError) in
                try renew()
                if var replica = base {
                    do throws(ModelError) {
                        try replica.reincarnate(as: replicaID)
                        base = replica
                    } catch {
                        base = nil
                    }
                }
                guard !report.displaced.isEmpty else { return }
                // Durable in the record log, ahead of its own ops, before the compact file is cut.
                try recordLog.replaceRecords(with: report.displaced + logOps)
            })
        if compactReport.droppedBytes > 0 || compactReport.reason != nil {
            notes.append("compacted op file: \(compactReport)")
        }
        logOps = compactReport.displaced + logOps
        // Every op of the files fits in the buffer while it is replayed, whatever was lost.
        let replayLimit = max(bufferLimit, compactOps.count + logOps.count + 1)

        var restored: Replica?
        if var replica = base {
            do throws(StorageError) {
                try replay(compactOps, into: &replica, from: files.compactLog)
                try replay(logOps, into: &replica, from: files.opLog)
                if replica.bufferedCount > 0 {
                    throw .unreplayableOp(
                        path: files.opLog.path, op: "\(replica.missingDependencies.first.map { "\($0)" } ?? "?")",
                        reason: "\(replica.bufferedCount) ops wait for it")
                }
                restored = replica
            } catch {
                notes.append("snapshot: does not match the op files (\(error.localizedDescription)); ignored, rebuilding from them")
                try? compactLog.close()
                (compactLog, compactOps, _) = try OpLogFile.open(
                    at: files.compactLog, format: .blocks, skipping: 0, beforeRepair: { _ throws(StorageError) in })
                base = nil
            }
        }
        let replica: Replica
        if let restored {
            replica = restored
        } else {
            // Bytes unbounded too: a lost record can leave every later op of the files waiting.
            var fresh = Replica(id: replicaID, bufferLimits: BufferLimits(ops: replayLimit, bytes: .max))
            try replay(compactOps, into: &fresh, from: files.compactLog)
            try replay(logOps, into: &fresh, from: files.opLog)
            fresh.limitBuffer(to: BufferLimits(ops: bufferLimit))
            replica = fresh
        }

        let storage = NodeStorage(
            files: files, recordLog: recordLog, compactLog: compactLog,
            appended: compactOps.count + logOps.count, snapshotOps: base?.opCount ?? 0)
        if replica.bufferedCount > 0 {
            let reason = "\(replica.bufferedCount) ops of the op files wait for ops that are missing"
            storage.counters.withLock { counters in
                counters.discardBlocked = reason
                counters.durableHeld = replica.heldOpIDs
            }
            let missing = replica.missingRanges.map(\.description).joined(separator: ", ")
            notes.append("op files: \(reason) (\(missing)); they are asked from peers, and the record log keeps all its records")
        }
        let report = StartupReport(
            snapshotOps: base?.opCount ?? 0, replayedOps: compactOps.count + logOps.count,
            log: logReport, compactLog: compactReport, notes: notes, replica: replicaID, repairs: opened.repairs)
        return (storage, replica, report)
    }

    /// Hands ops read from a file to the replica, which drops the ones it has.
    private static func replay(_ ops: [Op], into replica: inout Replica, from url: URL) throws(StorageError) {
        for op in ops {
            if case .rejected(let error) = replica.receive(op) {
                // A log written before counters were bounded may hold an op that jumped the clock
                // toward 2^48 (and froze the space); it is dropped here as a peer would refuse it,
                // rather than keep the node from starting.
                if case .counterTooFarAhead = error { continue }
                throw .unreplayableOp(path: url.path, op: op.id.description, reason: error.localizedDescription)
            }
        }
    }

    // MARK: Running

    /// Appends ops to the record log and syncs it: what the node does with every op it applies,
    /// before any peer gets it.
    ///
    /// On failure nothing of `ops` counts as written (the log is cut back to its last synced
    /// record), so the same ops can be persisted again later.
    package func persist(_ ops: [Op]) throws(StorageError) {
        let fresh = counters.withLock { counters in
            counters.durableHeld.isEmpty ? ops : ops.filter { !counters.durableHeld.contains($0.id) }
        }
        try recordLog.append(fresh)
        try recordLog.sync()
        counters.withLock { counters in
            if !counters.durableHeld.isEmpty { for op in ops { counters.durableHeld.remove(op.id) } }
            counters.appendedSinceCapture += fresh.count
        }
    }

    /// Ops appended (or replayed at start) since the last checkpoint took its copy.
    package var opsSinceCheckpoint: Int {
        counters.withLock { $0.appendedSinceCapture }
    }

    /// Takes what a checkpoint needs. Call it between two batches of the node's writer, with the
    /// replica whose ops are all durable, so that every op of `replica` is in the op files, and the
    /// record log holds nothing else before its end.
    package func capture(_ replica: Replica) -> Checkpoint {
        let end = recordLog.position
        counters.withLock { $0.appendedSinceCapture = 0 }
        return Checkpoint(replica: replica, logOffset: end.byteCount, logRecords: end.records, logOps: end.ops)
    }

    /// Runs one checkpoint: `capture` is called (it must call `capture(_:)` between two batches of
    /// the node's writer, or return nil to skip), then the snapshot is written, the ops compacted, and the record log
    /// cut. Checkpoints run one at a time.
    ///
    /// - Returns: The checkpoint taken, or nil when `capture` skipped it or nothing changed since
    ///   the last one.
    @discardableResult
    package func checkpoint(capture: () -> Checkpoint?) throws(StorageError) -> Checkpoint? {
        checkpointLock.lock()
        defer { checkpointLock.unlock() }
        guard let checkpoint = capture() else { return nil }
        if checkpoint.replica.opCount == counters.withLock({ $0.snapshotOps }) && checkpoint.logRecords == 0 { return nil }
        try writeSnapshot(checkpoint.replica)
        try compact(checkpoint.replica)
        try discardCompacted(checkpoint)
        return checkpoint
    }

    /// Step 1: writes the snapshot of a replica whose ops are all in the op files.
    func writeSnapshot(_ replica: Replica) throws(StorageError) {
        try SnapshotFile.write(replica, to: files.snapshot)
        counters.withLock { $0.snapshotOps = replica.opCount }
    }

    /// Step 2: appends to the compact file the replica's ops it lacks (its log positions M..<N:
    /// the compact file holds the first M ops the replica applied), and syncs it.
    ///
    /// After a failure, compaction stops for the life of this object (the record log keeps every
    /// op, so nothing is lost), since a failed sync leaves unknown what reached the disk.
    func compact(_ replica: Replica) throws(StorageError) {
        if let failure = counters.withLock({ $0.compactionFailure }) { throw .io(operation: "compact (\(failure))", path: files.compactLog.path, errno: EIO) }
        let present = compactLog.opCount
        guard present < replica.opCount else { return }
        do {
            try compactLog.append(batches: replica.encodedOps(atLogPositions: present..<replica.opCount, maximumBytes: Self.blockBytes))
            try compactLog.sync()
        } catch {
            counters.withLock { $0.compactionFailure = error.localizedDescription }
            throw error
        }
    }

    /// Step 3: rewrites the record log without its records before the checkpoint's offset, once
    /// the compact file holds every op of the checkpoint's replica (which they all belong to).
    func discardCompacted(_ checkpoint: Checkpoint) throws(StorageError) {
        guard counters.withLock({ $0.discardBlocked == nil && $0.compactionFailure == nil }),
              compactLog.opCount >= checkpoint.replica.opCount, checkpoint.logRecords > 0 else { return }
        try recordLog.discardRecords(upTo: checkpoint.logOffset, count: checkpoint.logRecords, opCount: checkpoint.logOps)
    }

    /// Syncs and closes both op files.
    package func close() throws(StorageError) {
        defer { try? compactLog.close() }
        try recordLog.close()
    }
}
