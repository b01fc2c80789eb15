import Foundation
@testable import GalleryIO
import GalleryModel
import GallerySimulation
@testable import GalleryStorage
import GalleryTestSupport
import Testing

/// The pieces a checkpoint writes: blocks of the compacted op file, the record log cut at a
/// record boundary, and the snapshot file.
@Suite("Compaction files")
struct CompactionFileTests {
    @Test("Blocks of ops round-trip; skipping k ops returns exactly the ops after the first k")
    func blocksSkip() throws {
        let (ops, replica) = StorageFixtures.workload(count: 1200, seed: 31)
        try StorageFixtures.withScratchDirectory { dir in
            let url = dir.appendingPathComponent("ops.compact")
            let (file, recovered, _) = try OpLogFile.open(at: url, format: .blocks, skipping: 0)
            #expect(recovered.isEmpty)
            // Small blocks, appended in three calls, so that skips fall inside and between blocks.
            let cuts = [0, 500, 900, ops.count]
            for index in 0..<3 {
                try file.append(batches: replica.encodedOps(atLogPositions: cuts[index]..<cuts[index + 1], maximumBytes: 4096))
            }
            try file.sync()
            #expect(file.opCount == ops.count)
            let records = file.recordCount
            #expect(records > 10)
            try file.close()

            var generator = SeededGenerator(seed: 32)
            var skips = [0, 1, 499, 500, 501, ops.count - 1, ops.count, ops.count + 5]
            for _ in 0..<20 { skips.append(Int.random(in: 0...ops.count, using: &generator)) }
            for skip in skips {
                let (reopened, after, report) = try OpLogFile.open(at: url, format: .blocks, skipping: skip)
                #expect(after == Array(ops.dropFirst(skip)), "skip \(skip)")
                #expect(report.records == records && report.droppedBytes == 0 && report.reason == nil)
                #expect(reopened.opCount == ops.count)
                try reopened.close()
            }
            // The two formats do not open as each other.
            #expect(throws: StorageError.notAnOpLog(path: url.path)) { try OpLogFile.open(at: url) }
        }
    }

    @Test("A torn or flipped block is cut with everything after it; the blocks before stay")
    func damagedBlock() throws {
        let (ops, replica) = StorageFixtures.workload(count: 600, seed: 33)
        try StorageFixtures.withScratchDirectory { dir in
            let url = dir.appendingPathComponent("ops.compact")
            let batches = replica.encodedOps(atLogPositions: 0..<ops.count, maximumBytes: 2048)
            let (file, _, _) = try OpLogFile.open(at: url, format: .blocks, skipping: 0)
            var boundaries = [file.byteCount]
            var opsBefore = [0]
            for batch in batches {
                try file.append(batches: [batch])
                boundaries.append(file.byteCount)
                opsBefore.append(opsBefore.last! + (try OpCodec.decode(batch)).count)
            }
            try file.close()
            let full = try StorageFixtures.contents(url)
            var generator = SeededGenerator(seed: 34)
            for round in 0..<30 {
                var damaged = full
                let position = Int.random(in: OpLogFile.headerLength..<full.count, using: &generator)
                if round % 2 == 0 {
                    damaged = Array(full[..<position])
                } else {
                    damaged[position] ^= UInt8.random(in: 1...255, using: &generator)
                }
                try StorageFixtures.write(damaged, to: url)
                let kept = boundaries.lastIndex { $0 <= position }!
                let (reopened, recovered, report) = try OpLogFile.open(at: url, format: .blocks, skipping: 0)
                // A flip in a block's bytes loses that block; a cut loses the block it falls in
                // (none when it falls on a boundary).
                #expect(recovered == Array(ops[..<opsBefore[kept]]), "round \(round) at \(position)")
                #expect(report.validBytes == boundaries[kept])
                #expect(reopened.opCount == opsBefore[kept])
                try reopened.close()
            }
        }
    }

    @Test("Cutting the record log keeps the records after the cut, synced or not; appends follow them")
    func discardRecords() throws {
        let ops = StorageFixtures.workload(count: 300, seed: 35).ops
        try StorageFixtures.withScratchDirectory { dir in
            let url = dir.appendingPathComponent("oplog")
            let (log, _, _) = try OpLogFile.open(at: url)
            try log.appendAndSync(Array(ops[..<200]))
            let cut = log.position
            try log.append(Array(ops[200..<250]))
            try log.discardRecords(upTo: cut.byteCount, count: cut.records, opCount: cut.ops)
            #expect(log.recordCount == 50 && log.opCount == 50)
            #expect(!FileManager.default.fileExists(atPath: url.path + ".tmp"))
            try log.appendAndSync(Array(ops[250...]))
            let (reopened, recovered, report) = try OpLogFile.open(at: url)
            #expect(recovered == Array(ops[200...]))
            #expect(report.droppedBytes == 0)
            #expect(reopened.byteCount == log.byteCount)
            try log.close()
        }
    }

    @Test("A snapshot round-trips; cut short, flipped, of another version or not one at all, it is unusable and says why")
    func snapshotFile() throws {
        let (_, replica) = StorageFixtures.workload(count: 800, seed: 36)
        try StorageFixtures.withScratchDirectory { dir in
            let url = dir.appendingPathComponent("snapshot")
            guard case .missing = SnapshotFile.read(from: url) else {
                Issue.record("a missing snapshot is not reported as missing")
                return
            }
            try SnapshotFile.write(replica, to: url)
            #expect(!FileManager.default.fileExists(atPath: url.path + ".tmp"))
            guard case .loaded(let loaded) = SnapshotFile.read(from: url) else {
                Issue.record("the snapshot just written does not load")
                return
            }
            let same = loaded.encodedState() == replica.encodedState()
            #expect(same)

            let full = try StorageFixtures.contents(url)
            func reason(_ bytes: [UInt8]) throws -> String? {
                try StorageFixtures.write(bytes, to: url)
                if case .unusable(let reason) = SnapshotFile.read(from: url) { return reason }
                return nil
            }
            var generator = SeededGenerator(seed: 37)
            for _ in 0..<25 {
                let cut = Int.random(in: 0..<full.count, using: &generator)
                #expect(try reason(Array(full[..<cut])) != nil, "cut at \(cut)")
                var flipped = full
                let position = Int.random(in: 0..<full.count, using: &generator)
                flipped[position] ^= UInt8.random(in: 1...255, using: &generator)
                #expect(try reason(flipped) != nil, "flip at \(position)")
            }
            var version = full
            version[4] = 9
            #expect(try reason(version)?.contains("format version 9") == true)
            #expect(try reason(Array("GSLG\u{1}\u{0}".utf8) + full.dropFirst(6))?.contains("wrong magic") == true)
            #expect(try reason(Array(full.dropLast()))?.contains("header says") == true)
            var body = full
            body[SnapshotFile.headerLength + 100] ^= 0x40
            #expect(try reason(body) == "checksum mismatch")
        }
    }
}
