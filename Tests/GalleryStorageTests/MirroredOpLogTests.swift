import Foundation
import GalleryIO
import GalleryModel
import GallerySimulation
@testable import GalleryStorage
import GalleryTestSupport
import Testing

/// The record log and its mirror on a real node directory: a flipped byte anywhere in either file,
/// in both, torn tails and crashes between the two files' writes, with no peer to ask.
@Suite("Mirrored op log")
struct MirroredOpLogTests {
    static let replicaID = ReplicaID(0xA1)
    /// Acknowledged adds in each directory.
    static let adds = 20

    /// A directory of `adds` acknowledged adds (after a gallery), each persisted alone as a local
    /// command is; returns every op, in order.
    static func makeDirectory(_ dir: URL, adds: Int = adds, first: Int = 0) throws -> [Op] {
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let opened = try NodeStorage.open(NodeDirectory(url: dir), replicaID: replicaID)
        let storage = opened.storage
        var replica = opened.replica
        defer { try? storage.close() }
        var ops: [Op] = []
        if replica.galleries.isEmpty {
            ops.append(try replica.createGallery("g"))
            try storage.persist(ops)
        }
        for index in first..<(first + adds) {
            let op = try replica.insert([.titled("item \(index)")], into: "g", at: try replica.count(in: "g"))
            try storage.persist([op])
            ops.append(op)
        }
        return ops
    }

    /// A node's start on the directory, with no peer: the replica and what the start found.
    static func restart(_ dir: URL) throws -> (replica: Replica, report: StartupReport) {
        let (storage, replica, report) = try NodeStorage.open(NodeDirectory(url: dir), replicaID: replicaID)
        try storage.close()
        return (replica, report)
    }

    /// The byte ranges of the records of a log file.
    static func records(_ bytes: [UInt8]) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        var offset = OpLogFile.headerLength
        while offset + 8 <= bytes.count {
            let length = (0..<4).reduce(0) { $0 | Int(bytes[offset + $1]) << (8 * $1) }
            ranges.append(offset..<(offset + 8 + length))
            offset += 8 + length
        }
        return ranges
    }

    /// The whole records at the head of `bytes` (records without a file header): how many, and
    /// where they end.
    static func whole(_ bytes: [UInt8]) -> (count: Int, end: Int) {
        var (count, offset) = (0, 0)
        while offset + 8 <= bytes.count {
            let length = (0..<4).reduce(0) { $0 | Int(bytes[offset + $1]) << (8 * $1) }
            guard offset + 8 + length <= bytes.count else { break }
            (count, offset) = (count + 1, offset + 8 + length)
        }
        return (count, offset)
    }

    /// Copies `source` (a directory) to a fresh scratch directory for one trial.
    static func copy(_ source: URL, into scratch: URL, trial: Int) throws -> URL {
        let target = scratch.appendingPathComponent("trial-\(trial)")
        try FileManager.default.copyItem(at: source, to: target)
        return target
    }

    /// Flips one byte of the file at `url` (every bit when `mask` is nil).
    static func flip(_ url: URL, at offset: Int, mask: UInt8 = 0xFF) throws {
        var bytes = try StorageFixtures.contents(url)
        bytes[offset] ^= mask
        try StorageFixtures.write(bytes, to: url)
    }

    @Test("One random byte flipped anywhere in oplog or in its mirror (seeded): every acknowledged op shows, no new incarnation, both files whole again")
    func oneFlippedByteLosesNothing() throws {
        try StorageFixtures.withScratchDirectory { scratch in
            let base = scratch.appendingPathComponent("base")
            let ops = try Self.makeDirectory(base)
            let files = NodeDirectory(url: base)
            let original = try StorageFixtures.contents(files.opLog)
            #expect(try StorageFixtures.contents(files.opLogMirror) == original, "the mirror holds the log's bytes")
            var generator = SeededGenerator(seed: 2026)
            // The header's bytes, each record's first and last byte, then random offsets.
            var offsets = Array(0..<OpLogFile.headerLength) + Self.records(original).flatMap { [$0.lowerBound, $0.upperBound - 1] }
            offsets += (0..<60).map { _ in Int.random(in: 0..<original.count, using: &generator) }
            for (trial, offset) in offsets.enumerated() {
                let dir = try Self.copy(base, into: scratch, trial: trial)
                let trialFiles = NodeDirectory(url: dir)
                let damaged = trial % 2 == 0 ? trialFiles.opLog : trialFiles.opLogMirror
                let mask = UInt8.random(in: 1...255, using: &generator)
                try Self.flip(damaged, at: offset, mask: mask)
                let context: Comment = "\(damaged.lastPathComponent), offset \(offset), mask \(mask)"

                let (replica, report) = try Self.restart(dir)
                #expect(ops.allSatisfy { replica.contains($0.id) }, context)
                #expect(replica.opCount == ops.count && replica.bufferedCount == 0, context)
                #expect(report.replica == Self.replicaID, "nothing lost, so no new incarnation: \(context)")
                #expect(!report.repairs.isEmpty, "the repair is reported: \(context)")
                #expect(try StorageFixtures.contents(trialFiles.opLog) == original, context)
                #expect(try StorageFixtures.contents(trialFiles.opLogMirror) == original, context)
                let again = try Self.restart(dir)
                #expect(again.report.repairs.isEmpty && again.report.notes.isEmpty, "a repaired pair is clean: \(context)")
                try FileManager.default.removeItem(at: dir)
            }
        }
    }

    @Test("A byte flipped in each file, in different records (seeded): every op shows, nothing lost")
    func flipsInBothAtDifferentRecords() throws {
        try StorageFixtures.withScratchDirectory { scratch in
            let base = scratch.appendingPathComponent("base")
            let ops = try Self.makeDirectory(base)
            let original = try StorageFixtures.contents(NodeDirectory(url: base).opLog)
            let records = Self.records(original)
            var generator = SeededGenerator(seed: 7)
            for trial in 0..<20 {
                let first = Int.random(in: 0..<records.count, using: &generator)
                var second = Int.random(in: 0..<(records.count - 1), using: &generator)
                if second >= first { second += 1 }
                let dir = try Self.copy(base, into: scratch, trial: trial)
                let files = NodeDirectory(url: dir)
                try Self.flip(files.opLog, at: Int.random(in: records[first], using: &generator))
                try Self.flip(files.opLogMirror, at: Int.random(in: records[second], using: &generator))

                let (replica, report) = try Self.restart(dir)
                #expect(replica.opCount == ops.count && replica.bufferedCount == 0, "records \(first), \(second)")
                #expect(report.replica == Self.replicaID)
                #expect(report.repairs.count == 2, "\(report.repairs)")
                #expect(try StorageFixtures.contents(files.opLog) == original)
                #expect(try StorageFixtures.contents(files.opLogMirror) == original)
                try FileManager.default.removeItem(at: dir)
            }
        }
    }

    @Test("A byte flipped in both files in the same record: that op is lost and reported, the ops after it wait for it, a new incarnation; the op from a peer releases them")
    func flipsInBothAtTheSameRecord() throws {
        try StorageFixtures.withScratchDirectory { scratch in
            let base = scratch.appendingPathComponent("base")
            let ops = try Self.makeDirectory(base)
            let records = Self.records(try StorageFixtures.contents(NodeDirectory(url: base).opLog))
            var generator = SeededGenerator(seed: 11)
            for trial in 0..<6 {
                let lost = Int.random(in: 1..<records.count, using: &generator)
                let dir = try Self.copy(base, into: scratch, trial: trial)
                let files = NodeDirectory(url: dir)
                try Self.flip(files.opLog, at: Int.random(in: records[lost], using: &generator))
                try Self.flip(files.opLogMirror, at: Int.random(in: records[lost], using: &generator))

                var (replica, report) = try Self.restart(dir)
                #expect(replica.opCount == lost, "the ops before it show")
                #expect(!replica.contains(ops[lost].id))
                #expect(replica.bufferedCount == ops.count - lost - 1, "the ops after it are kept, waiting for it")
                // Known missing once a later op names it (the last op lost leaves no trace but the new incarnation).
                let named = lost < ops.count - 1 ? [ops[lost].id.description] : []
                #expect(replica.missingRanges.map(\.description) == named)
                #expect(report.replica != Self.replicaID, "records were lost: a new incarnation")
                #expect(report.repairs.contains { $0.contains("damaged in both") }, "\(report.repairs)")
                var released: [Op] = []
                replica.receive(ops[lost]) { released.append($0) }
                #expect(released.map(\.id) == ops[lost...].map(\.id), "a peer's copy of the lost op releases every op after it")
                try FileManager.default.removeItem(at: dir)
            }
        }
    }

    /// How a crash during one batch's writes leaves the two files.
    enum Crash: String, CaseIterable {
        /// The log holds the whole batch, the mirror none of it.
        case beforeMirrorWrite
        /// The log holds the whole batch, the mirror a torn part of it.
        case mirrorTorn
        /// The mirror holds the whole batch, the log a torn part (the log's write was delayed).
        case logTorn
        /// Both hold torn parts of it.
        case bothTorn
    }

    @Test("A crash in the middle of a batch's writes (kill -9): every acknowledged op shows, a batch whole in either file is kept, a torn tail costs no new incarnation", arguments: Crash.allCases)
    func crashBetweenTheWrites(_ crash: Crash) throws {
        try StorageFixtures.withScratchDirectory { scratch in
            let base = scratch.appendingPathComponent("base")
            let acknowledged = try Self.makeDirectory(base)
            let files = NodeDirectory(url: base)
            let before = try StorageFixtures.contents(files.opLog)
            // The batch in flight: written by a node on a copy, its bytes cut below.
            let ahead = scratch.appendingPathComponent("ahead")
            try FileManager.default.copyItem(at: base, to: ahead)
            let batch = try Self.makeDirectory(ahead, adds: 3, first: 100)
            let extra = Array(try StorageFixtures.contents(NodeDirectory(url: ahead).opLog)[before.count...])
            var generator = SeededGenerator(seed: 5)
            for trial in 0..<8 {
                let torn = { Array(extra.prefix(Int.random(in: 1..<extra.count, using: &generator))) }
                let (log, mirror): ([UInt8], [UInt8]) = switch crash {
                case .beforeMirrorWrite: (extra, [])
                case .mirrorTorn: (extra, torn())
                case .logTorn: (torn(), extra)
                case .bothTorn: (torn(), torn())
                }
                let dir = try Self.copy(base, into: scratch, trial: trial)
                let trialFiles = NodeDirectory(url: dir)
                try StorageFixtures.write(before + log, to: trialFiles.opLog)
                try StorageFixtures.write(before + mirror, to: trialFiles.opLogMirror)

                let (replica, report) = try Self.restart(dir)
                #expect(acknowledged.allSatisfy { replica.contains($0.id) } && replica.bufferedCount == 0, "\(crash)")
                if log == extra || mirror == extra {
                    #expect(batch.allSatisfy { replica.contains($0.id) }, "\(crash): a batch whole in either file is kept")
                }
                // What a crash cut in one file was never synced in both, so never acknowledged nor
                // sent: dropped without a new incarnation. Both cut inside the same record counts
                // as a loss (acknowledged records cut from both look the same).
                let (inLog, inMirror) = (Self.whole(log), Self.whole(mirror))
                let bothCutInOneRecord = inLog.count == inMirror.count && inLog.end != log.count && inMirror.end != mirror.count
                #expect((report.replica == Self.replicaID) == !bothCutInOneRecord, "\(crash): \(report.notes)")
                let healed = try StorageFixtures.contents(trialFiles.opLog)
                #expect(try StorageFixtures.contents(trialFiles.opLogMirror) == healed, "\(crash): the two files the same again")
                try FileManager.default.removeItem(at: dir)
            }
        }
    }

    @Test("A directory of an older version (no mirror): the mirror is made from the log at start, and said so")
    func mirrorCreatedFromTheLog() throws {
        try StorageFixtures.withScratchDirectory { dir in
            let ops = try Self.makeDirectory(dir)
            let files = NodeDirectory(url: dir)
            try FileManager.default.removeItem(at: files.opLogMirror)
            let (replica, report) = try Self.restart(dir)
            #expect(replica.opCount == ops.count)
            #expect(report.repairs == ["oplog.mirror: created from oplog (\(ops.count) records)"])
            #expect(try StorageFixtures.contents(files.opLogMirror) == StorageFixtures.contents(files.opLog))
            // From now on a flipped byte in the log loses nothing.
            try Self.flip(files.opLog, at: Self.records(try StorageFixtures.contents(files.opLog))[5].lowerBound + 9)
            let again = try Self.restart(dir)
            #expect(again.replica.opCount == ops.count && again.report.replica == Self.replicaID)
        }
    }

    @Test("A failed fsync or write of the mirror cuts the log back to their last common sync, so that the batch is written again at the same place in both")
    func mirrorFailureCutsBothBack() throws {
        var replica = Replica(id: Self.replicaID)
        let first = [try replica.createGallery("g")]
        let second = [try replica.insert([.titled("a")], into: "g", at: 0)]
        for failing in ["fsync", "write"] {
            try StorageFixtures.withScratchDirectory { dir in
                let files = NodeDirectory(url: dir)
                let log = try MirroredOpLog.open(at: files.opLog, mirror: files.opLogMirror, beforeRepair: { _ in }).log
                try log.appendAndSync(first)
                let synced = log.byteCount
                if failing == "fsync" { try log.append(second) }
                // The mirror's descriptor is gone from under it: its next call fails.
                try log.mirror?.close()
                #expect(throws: StorageError.closed(path: files.opLogMirror.path)) {
                    if failing == "fsync" { try log.sync() } else { try log.append(second) }
                }
                #expect(log.byteCount == synced && log.recordCount == 1, "\(failing): the log is cut back with its mirror")
                try log.close()
                #expect(try StorageFixtures.contents(files.opLog).count == synced, "\(failing)")
            }
        }
    }

    @Test("A log deleted while its mirror stays: the mirror is copied back as the log, and said so")
    func logRestoredFromTheMirror() throws {
        try StorageFixtures.withScratchDirectory { dir in
            let ops = try Self.makeDirectory(dir)
            let files = NodeDirectory(url: dir)
            let original = try StorageFixtures.contents(files.opLog)
            try FileManager.default.removeItem(at: files.opLog)
            let (replica, report) = try Self.restart(dir)
            #expect(replica.ops.map(\.id) == ops.map(\.id))
            #expect(report.repairs == ["oplog: missing; restored from oplog.mirror"])
            #expect(try StorageFixtures.contents(files.opLog) == original)
        }
    }

    @Test("A crash between a checkpoint's two rewrites (the log cut, its mirror not yet) and a flipped byte in the log: nothing lost")
    func crashBetweenTheCheckpointRewrites() throws {
        try StorageFixtures.withScratchDirectory { dir in
            let files = NodeDirectory(url: dir)
            let opened = try NodeStorage.open(files, replicaID: Self.replicaID)
            let storage = opened.storage
            var replica = opened.replica
            let gallery = try replica.createGallery("g")
            try storage.persist([gallery])
            for index in 0..<10 { try storage.persist([try replica.insert([.titled("\(index)")], into: "g", at: index)]) }
            let checkpoint = storage.capture(replica)
            for index in 10..<20 { try storage.persist([try replica.insert([.titled("\(index)")], into: "g", at: index)]) }
            try storage.writeSnapshot(checkpoint.replica)
            try storage.compact(checkpoint.replica)
            // The crash: only the log lost its compacted records.
            try storage.recordLog.primary.discardRecords(
                upTo: checkpoint.logOffset, count: checkpoint.logRecords, opCount: checkpoint.logOps)
            try storage.close()
            let log = try StorageFixtures.contents(files.opLog)
            #expect(try StorageFixtures.contents(files.opLogMirror).count > log.count)
            try Self.flip(files.opLog, at: Self.records(log)[3].lowerBound + 10)

            let (restarted, report) = try Self.restart(dir)
            #expect(restarted.opCount == replica.opCount && restarted.bufferedCount == 0)
            #expect(restarted.ops.map(\.id) == replica.ops.map(\.id))
            #expect(report.replica == Self.replicaID, "\(report.notes)")
            #expect(try StorageFixtures.contents(files.opLogMirror) == StorageFixtures.contents(files.opLog))
        }
    }
}
