import Foundation
import GalleryModel
import GallerySimulation
@testable import GalleryStorage
import GalleryTestSupport
import Testing

/// A node's storage without sockets: start from snapshot and op files, checkpoints, and crashes at
/// every step of a checkpoint.
@Suite("NodeStorage")
struct NodeStorageTests {
    /// The replica of the workloads' first replica, whose node these directories are.
    static let replicaID = ReplicaID(0xA1)
    /// One seeded workload of 2,000 ops shared by the tests (it is slow to make in debug builds).
    static let ops = StorageFixtures.workload(count: 2000, seed: 41).ops

    /// A node's life on a directory: ops applied to the replica and persisted as `SyncNode` does.
    final class Node {
        let files: NodeDirectory
        var storage: NodeStorage
        var replica: Replica
        var report: StartupReport

        init(_ directory: URL) throws {
            files = NodeDirectory(url: directory)
            (storage, replica, report) = try NodeStorage.open(files, replicaID: NodeStorageTests.replicaID)
        }

        /// Receives ops and persists the ones applied, a few per batch (a received frame).
        func apply(_ ops: ArraySlice<Op>) throws {
            var index = ops.startIndex
            while index < ops.endIndex {
                let end = min(ops.endIndex, index + 7)
                var applied: [Op] = []
                for op in ops[index..<end] { replica.receive(op) { applied.append($0) } }
                try storage.persist(applied)
                index = end
            }
        }

        /// A whole checkpoint.
        func checkpoint() throws {
            try storage.checkpoint { storage.capture(replica) }
        }

        /// Local commands: what the replica makes next.
        func nextOps() throws -> [Op] {
            try Self.nextOps(of: replica)
        }

        /// What a replica makes next.
        static func nextOps(of replica: Replica) throws -> [Op] {
            var copy = replica
            let gallery = copy.galleries[0]
            let run = try copy.insert([.titled("next")], into: gallery, at: 0)
            return [run, try copy.update(run.id, .title, to: .text("next!")), try copy.delete(run.id)]
        }
    }

    /// Checks that a restarted node is the node before the restart in every way.
    private func expectRestored(_ restarted: Node, _ before: Node, _ comment: Comment? = nil,
                                sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(restarted.replica.version == before.replica.version, comment, sourceLocation: sourceLocation)
        let sameOps = restarted.replica.ops == before.replica.ops
        #expect(sameOps, comment, sourceLocation: sourceLocation)
        #expect(StorageFixtures.view(restarted.replica) == StorageFixtures.view(before.replica), comment,
                sourceLocation: sourceLocation)
        // Compared as Booleans: a failure prints the comment, not megabytes of bytes.
        let sameCatchUp = restarted.replica.encodedOps(missingFrom: VersionVector(), maximumBytes: 1 << 16)
            == before.replica.encodedOps(missingFrom: VersionVector(), maximumBytes: 1 << 16)
        #expect(sameCatchUp, comment, sourceLocation: sourceLocation)
        #expect(restarted.replica.bufferedCount == 0, comment, sourceLocation: sourceLocation)
        #expect(restarted.report.replica == restarted.replica.id, comment, sourceLocation: sourceLocation)
        var expected = before.replica
        if restarted.replica.id != before.replica.id {
            // Records were cut: a new incarnation, whose ops take IDs never used.
            #expect(restarted.report.notes.contains { $0.contains("new incarnation") }, comment, sourceLocation: sourceLocation)
            try expected.reincarnate(as: restarted.replica.id)
        } else {
            let sameState = restarted.replica.encodedState() == before.replica.encodedState()
            #expect(sameState, comment, sourceLocation: sourceLocation)
        }
        #expect(try restarted.nextOps() == Node.nextOps(of: expected), comment, sourceLocation: sourceLocation)
    }

    @Test("Checkpoint, more ops, restart: the snapshot and the ops after it give the same replica; the log holds only those ops")
    func restartFromSnapshot() throws {
        let ops = Self.ops
        try StorageFixtures.withScratchDirectory { dir in
            let node = try Node(dir)
            try node.apply(ops[..<1300])
            try node.checkpoint()
            #expect(node.storage.compactLog.opCount == node.replica.opCount)
            #expect(node.storage.recordLog.recordCount == 0)
            try node.apply(ops[1300...])
            try node.storage.close()

            let restarted = try Node(dir)
            #expect(restarted.report.snapshotOps == 1300)
            #expect(restarted.report.replayedOps == ops.count - 1300)
            #expect(restarted.report.notes.isEmpty, "\(restarted.report.notes)")
            try expectRestored(restarted, node)

            // A second checkpoint appends to the compact file; a start without the snapshot
            // rebuilds the same replica from the compact file alone.
            try restarted.checkpoint()
            #expect(restarted.storage.recordLog.recordCount == 0)
            #expect(restarted.storage.compactLog.opCount == ops.count)
            try restarted.storage.close()
            try FileManager.default.removeItem(at: NodeDirectory(url: dir).snapshot)
            let rebuilt = try Node(dir)
            #expect(rebuilt.report.snapshotOps == 0 && rebuilt.report.replayedOps == ops.count)
            try expectRestored(rebuilt, node)
        }
    }

    @Test("A snapshot cut short, flipped, of another version or of another replica is ignored, said so, and nothing is lost")
    func damagedSnapshotFallsBack() throws {
        let ops = Self.ops
        try StorageFixtures.withScratchDirectory { dir in
            let node = try Node(dir)
            try node.apply(ops[..<1000])
            try node.checkpoint()
            try node.apply(ops[1000...])
            try node.storage.close()
            let url = NodeDirectory(url: dir).snapshot
            let good = try StorageFixtures.contents(url)

            var damaged: [[UInt8]] = [[], Array(good.prefix(10)), Array(good.dropLast())]
            var generator = SeededGenerator(seed: 43)
            for _ in 0..<6 {
                var flipped = good
                let position = Int.random(in: 0..<good.count, using: &generator)
                flipped[position] ^= UInt8.random(in: 1...255, using: &generator)
                damaged.append(flipped)
                damaged.append(Array(good.prefix(Int.random(in: 0..<good.count, using: &generator))))
            }
            var otherVersion = good
            otherVersion[4] &+= 1
            damaged.append(otherVersion)
            var other = Replica(id: ReplicaID(0xB2))
            for op in ops[..<1000] { other.receive(op) }
            try SnapshotFile.write(other, to: url)
            damaged.append(try StorageFixtures.contents(url))

            for (index, bytes) in damaged.enumerated() {
                try StorageFixtures.write(bytes, to: url)
                let restarted = try Node(dir)
                #expect(restarted.report.snapshotOps == 0, "case \(index)")
                #expect(restarted.report.notes.count == 1 && restarted.report.notes[0].hasPrefix("snapshot: "),
                        "case \(index): \(restarted.report.notes)")
                #expect(restarted.report.replayedOps == ops.count)
                try expectRestored(restarted, node, "case \(index)")
                try restarted.storage.close()
            }
            try StorageFixtures.write(good, to: url)
            let healthy = try Node(dir)
            #expect(healthy.report.snapshotOps == 1000 && healthy.report.notes.isEmpty)
        }
    }

    /// Where a crash stops a checkpoint.
    enum CrashPoint: String, CaseIterable {
        /// The snapshot's temporary file is half written.
        case snapshotTemporary
        /// The snapshot is renamed in place; nothing else happened.
        case afterSnapshot
        /// The compact file's append is torn.
        case compactTorn
        /// The compact file holds the ops; the log still holds them too.
        case afterCompact
        /// The log's replacement is half written.
        case logTemporary
        /// Compaction ran without the snapshot (the snapshot's write failed).
        case compactWithoutSnapshot
        /// Everything.
        case complete
    }

    @Test("A crash at each step of a checkpoint loses nothing, and the next checkpoint cleans up", arguments: CrashPoint.allCases)
    func crashDuringCheckpoint(at point: CrashPoint) throws {
        let ops = Self.ops
        try StorageFixtures.withScratchDirectory { dir in
            let node = try Node(dir)
            try node.apply(ops[..<500])
            try node.checkpoint()
            try node.apply(ops[500..<1300])
            let checkpoint = node.storage.capture(node.replica)
            try node.apply(ops[1300...])
            let files = node.files
            var generator = SeededGenerator(seed: 45)
            let garbage = StorageFixtures.randomBytes(5000, seed: 46)

            switch point {
            case .snapshotTemporary:
                try StorageFixtures.write(garbage, to: URL(fileURLWithPath: files.snapshot.path + ".tmp"))
            case .afterSnapshot:
                try node.storage.writeSnapshot(checkpoint.replica)
            case .compactTorn:
                try node.storage.writeSnapshot(checkpoint.replica)
                let present = node.storage.compactLog.opCount
                var records: [UInt8] = []
                for batch in checkpoint.replica.encodedOps(
                    atLogPositions: present..<checkpoint.replica.opCount, maximumBytes: 4096) {
                    records += try OpLogFile.encodeRecord(batch)
                }
                let handle = try FileHandle(forWritingTo: files.compactLog)
                try handle.seekToEnd()
                try handle.write(contentsOf: Data(records.prefix(Int.random(in: 1..<records.count, using: &generator))))
                try handle.close()
            case .afterCompact:
                try node.storage.writeSnapshot(checkpoint.replica)
                try node.storage.compact(checkpoint.replica)
            case .logTemporary:
                try node.storage.writeSnapshot(checkpoint.replica)
                try node.storage.compact(checkpoint.replica)
                try StorageFixtures.write(OpLogFile.expectedHeader + garbage, to: URL(fileURLWithPath: files.opLog.path + ".tmp"))
            case .compactWithoutSnapshot:
                try node.storage.compact(checkpoint.replica)
            case .complete:
                try node.storage.writeSnapshot(checkpoint.replica)
                try node.storage.compact(checkpoint.replica)
                try node.storage.discardCompacted(checkpoint)
            }
            // The crash: the files stay as they are (every write reached the disk or was torn).

            let restarted = try Node(dir)
            try expectRestored(restarted, node, "\(point)")
            #expect(!FileManager.default.fileExists(atPath: files.snapshot.path + ".tmp"))
            #expect(!FileManager.default.fileExists(atPath: files.opLog.path + ".tmp"))
            let expectedSnapshot = switch point {
            case .snapshotTemporary, .compactWithoutSnapshot: 500
            default: 1300
            }
            #expect(restarted.report.snapshotOps == expectedSnapshot)
            #expect(restarted.report.notes.isEmpty == (point != .compactTorn), "\(restarted.report.notes)")

            try restarted.checkpoint()
            #expect(restarted.storage.compactLog.opCount == ops.count)
            #expect(restarted.storage.recordLog.recordCount == 0)
            try restarted.storage.close()
            try FileManager.default.removeItem(at: files.snapshot)
            let rebuilt = try Node(dir)
            try expectRestored(rebuilt, node, "\(point), rebuilt from the op files")
        }
    }

    @Test("A damaged block in the compact file is cut and reported, the node is a new incarnation; with the snapshot nothing is lost, and the next checkpoint writes the ops again")
    func damagedCompactFileIsRefilled() throws {
        let ops = Self.ops
        try StorageFixtures.withScratchDirectory { dir in
            let node = try Node(dir)
            try node.apply(ops[..<600])
            try node.checkpoint()
            try node.apply(ops[600..<1500])
            try node.checkpoint()
            try node.apply(ops[1500...])
            try node.storage.close()
            // Flip a byte early in the compact file: its first block and every later one are cut.
            let url = node.files.compactLog
            var bytes = try StorageFixtures.contents(url)
            bytes[OpLogFile.headerLength + OpLogFile.recordHeaderLength + 20] ^= 0x55
            try StorageFixtures.write(bytes, to: url)

            let restarted = try Node(dir)
            #expect(restarted.report.snapshotOps == 1500)
            #expect(restarted.report.notes.count == 2 && restarted.report.notes.contains { $0.contains("compacted op file") },
                    "\(restarted.report.notes)")
            #expect(restarted.replica.id != Self.replicaID, "records were cut: a new incarnation")
            #expect(restarted.storage.compactLog.opCount == 0)
            try expectRestored(restarted, node)
            try restarted.checkpoint()
            #expect(restarted.storage.compactLog.opCount == ops.count)
            try restarted.storage.close()
            try FileManager.default.removeItem(at: node.files.snapshot)
            let rebuilt = try Node(dir)
            try expectRestored(rebuilt, node)
        }
    }

    @Test("A checkpoint with nothing new writes nothing; one after a start from the files writes the snapshot")
    func checkpointOnlyWhenSomethingChanged() throws {
        let ops = Self.ops
        try StorageFixtures.withScratchDirectory { dir in
            let node = try Node(dir)
            try node.apply(ops[...])
            #expect(node.storage.opsSinceCheckpoint == ops.count)
            #expect(try node.storage.checkpoint { node.storage.capture(node.replica) } != nil)
            #expect(node.storage.opsSinceCheckpoint == 0)
            let modified = try FileManager.default.attributesOfItem(atPath: node.files.snapshot.path)[.modificationDate] as? Date
            #expect(try node.storage.checkpoint { node.storage.capture(node.replica) } == nil)
            #expect(try FileManager.default.attributesOfItem(atPath: node.files.snapshot.path)[.modificationDate] as? Date == modified)
            #expect(try node.storage.checkpoint { nil } == nil)
        }
    }
}
