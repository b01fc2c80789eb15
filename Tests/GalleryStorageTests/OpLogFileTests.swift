import Foundation
import GalleryCrypto
@testable import GalleryIO
import GalleryModel
import GallerySimulation
@testable import GalleryStorage
import GalleryTestSupport
import Testing

/// The op log on disk: exact round trips, recovery from torn and corrupt tails, refusing foreign files.
@Suite("OpLogFile")
struct OpLogFileTests {
    @Test("syncCount counts the fsyncs that flushed records, not the empty ones")
    func syncCount() throws {
        let (ops, _) = StorageFixtures.workload(count: 10, seed: 3)
        try StorageFixtures.withScratchDirectory { dir in
            let (log, _, _) = try OpLogFile.open(at: dir.appendingPathComponent("ops.log"))
            #expect(log.syncCount == 0)
            try log.appendAndSync([ops[0]])
            try log.sync()
            #expect(log.syncCount == 1)
            try log.append([ops[1]])
            try log.append([ops[2]])
            try log.sync()
            #expect(log.syncCount == 2)
            try log.append([ops[3]])
            try log.close()
            #expect(log.syncCount == 3)
        }
    }

    @Test("Thousands of ops of every kind round-trip through append and reopen")
    func roundTrip() throws {
        let (ops, original) = StorageFixtures.workload(count: 3000, seed: 7)
        #expect(ops.count >= 3000)
        let kinds = Set(ops.map { op -> String in
            switch op.action {
            case .createGallery: "createGallery"
            case .insert(_, _, _, let items): items.contains { $0.isPlaceholder } ? "insertPlaceholder" : "insert"
            case .move: "move"
            case .delete: "delete"
            case .update(_, let field, _): "update \(field)"
            case .commit: "commit"
            case .renameGallery: "renameGallery"
            case .deleteGallery: "deleteGallery"
            }
        })
        #expect(kinds.count == 7 + 1 + ItemField.allCases.count, "\(kinds.sorted())")
        try StorageFixtures.withScratchDirectory { dir in
            let url = dir.appendingPathComponent("ops.log")
            let (log, _, created) = try OpLogFile.open(at: url)
            #expect(created == RecoveryReport(records: 0, validBytes: OpLogFile.headerLength, droppedBytes: 0, reason: nil))
            var generator = SeededGenerator(seed: 11)
            var index = 0
            while index < ops.count {
                let end = min(ops.count, index + Int.random(in: 1...40, using: &generator))
                if Bool.random(using: &generator) {
                    try log.appendAndSync(Array(ops[index..<end]))
                } else {
                    try log.append(Array(ops[index..<end]))
                }
                index = end
            }
            try log.sync()
            let size = log.byteCount
            #expect(log.recordCount == ops.count)
            try log.close()
            #expect(throws: StorageError.closed(path: url.path)) { try log.append([ops[0]]) }

            let (reopened, recovered, report) = try OpLogFile.open(at: url)
            #expect(recovered == ops)
            #expect(report == RecoveryReport(records: ops.count, validBytes: size, droppedBytes: 0, reason: nil))
            #expect(reopened.byteCount == size)

            var fresh = Replica(id: ReplicaID(0xD4))
            for op in recovered { fresh.receive(op) }
            #expect(fresh.version == original.version)
            #expect(fresh.ops == original.ops)
            #expect(StorageFixtures.view(fresh) == StorageFixtures.view(original))
            #expect(!StorageFixtures.view(original).isEmpty)
        }
    }

    @Test("A cut at every offset inside the last record is found, truncated and reported; appends then survive")
    func tornLastRecord() throws {
        let ops = StorageFixtures.workload(count: 20, seed: 3).ops
        try StorageFixtures.withScratchDirectory { dir in
            let source = dir.appendingPathComponent("source.log")
            let boundaries = try writeOpLog(ops, at: source)
            let full = try StorageFixtures.contents(source)
            let lastStart = boundaries[ops.count - 1]
            #expect(full.count == boundaries[ops.count])
            let url = dir.appendingPathComponent("cut.log")
            for cut in (lastStart + 1)..<full.count {
                try StorageFixtures.write(Array(full[..<cut]), to: url)
                let (log, recovered, report) = try OpLogFile.open(at: url)
                #expect(recovered == Array(ops.dropLast()))
                #expect(report.records == ops.count - 1)
                #expect(report.validBytes == lastStart)
                #expect(report.droppedBytes == cut - lastStart)
                #expect(report.reason?.contains("torn") == true)
                #expect(try StorageFixtures.contents(url).count == lastStart)

                try log.appendAndSync([ops[ops.count - 1]])
                let (_, again, clean) = try OpLogFile.open(at: url)
                #expect(again == ops)
                #expect(clean.droppedBytes == 0 && clean.reason == nil)
                #expect(try StorageFixtures.contents(url) == full)
            }
        }
    }

    @Test("Random cuts of a 200-op log keep exactly the whole records before the cut")
    func tornAtRandomOffsets() throws {
        let ops = StorageFixtures.workload(count: 200, seed: 5).ops
        try StorageFixtures.withScratchDirectory { dir in
            let source = dir.appendingPathComponent("source.log")
            let boundaries = try writeOpLog(ops, at: source)
            let full = try StorageFixtures.contents(source)
            let url = dir.appendingPathComponent("cut.log")
            var generator = SeededGenerator(seed: 200)
            for _ in 0..<60 {
                let cut = Int.random(in: OpLogFile.headerLength..<full.count, using: &generator)
                let kept = boundaries.lastIndex { $0 <= cut }!
                try StorageFixtures.write(Array(full[..<cut]), to: url)
                let (log, recovered, report) = try OpLogFile.open(at: url)
                #expect(recovered == Array(ops[..<kept]))
                #expect(report.validBytes == boundaries[kept])
                #expect(report.droppedBytes == cut - boundaries[kept])
                #expect((report.reason == nil) == (cut == boundaries[kept]))

                try log.append(Array(ops[kept...]))
                try log.sync()
                let (_, again, clean) = try OpLogFile.open(at: url)
                #expect(again == ops)
                #expect(clean.droppedBytes == 0)
            }
        }
    }

    @Test("A flipped byte drops its record only: every intact record after it is kept, the file rewritten without it")
    func flippedByte() throws {
        let ops = StorageFixtures.workload(count: 60, seed: 9).ops
        try StorageFixtures.withScratchDirectory { dir in
            let source = dir.appendingPathComponent("source.log")
            let boundaries = try writeOpLog(ops, at: source)
            let full = try StorageFixtures.contents(source)
            let url = dir.appendingPathComponent("flipped.log")
            var generator = SeededGenerator(seed: 60)
            for _ in 0..<60 {
                let position = Int.random(in: OpLogFile.headerLength..<full.count, using: &generator)
                let damaged = boundaries.lastIndex { $0 <= position }!
                var bytes = full
                bytes[position] ^= UInt8.random(in: 1...255, using: &generator)
                try StorageFixtures.write(bytes, to: url)
                var reported: RecoveryReport?
                let (_, recovered, report) = try OpLogFile.open(
                    at: url, format: .records, skipping: 0, beforeRepair: { reported = $0 })
                var expected = ops
                expected.remove(at: damaged)
                let recordEnd = damaged + 1 < boundaries.count ? boundaries[damaged + 1] : full.count
                #expect(recovered == expected)
                #expect(report.records == ops.count - 1)
                #expect(report.recordsAfterDamage == ops.count - 1 - damaged)
                #expect(report.damage == [boundaries[damaged]..<recordEnd])
                #expect(report.droppedBytes == recordEnd - boundaries[damaged])
                #expect(report.reason != nil && report.lostRecords)
                #expect(reported == report, "the caller hears of the damage before the file changes")
                #expect(try StorageFixtures.contents(url) == Array(full[..<boundaries[damaged]] + full[recordEnd...]))
                let (_, again, clean) = try OpLogFile.open(at: url)
                #expect(again == expected && !clean.lostRecords)
            }
        }
    }

    @Test("Garbage between records, and records cut in two, are skipped to the next intact record")
    func garbageBetweenRecords() throws {
        let ops = StorageFixtures.workload(count: 30, seed: 4).ops
        try StorageFixtures.withScratchDirectory { dir in
            let url = dir.appendingPathComponent("ops.log")
            let boundaries = try writeOpLog(ops, at: url)
            let full = try StorageFixtures.contents(url)
            // Random garbage (with plausible little lengths in it) replacing records 5 and 6 and the
            // first half of 7, and 3 bytes cut out of record 20.
            var bytes = Array(full[..<boundaries[5]]) + StorageFixtures.randomBytes(97, seed: 3) + [1, 0, 0, 0, 9, 9, 9, 9, 1]
            let middle7 = (boundaries[7] + boundaries[8]) / 2
            bytes += full[middle7..<(boundaries[20] + 5)] + full[(boundaries[20] + 8)...]
            try StorageFixtures.write(bytes, to: url)
            let (_, recovered, report) = try OpLogFile.open(at: url)
            #expect(recovered == Array(ops[..<5] + ops[8..<20] + ops[21...]))
            #expect(report.damage.count == 2)
        }
    }

    @Test("Garbage lengths are refused from the header alone, without allocating for them")
    func garbageLength() throws {
        let ops = StorageFixtures.workload(count: 5, seed: 1).ops
        try StorageFixtures.withScratchDirectory { dir in
            let url = dir.appendingPathComponent("ops.log")
            let boundaries = try writeOpLog(ops, at: url)
            let valid = try StorageFixtures.contents(url)
            let tails: [(bytes: [UInt8], reason: String)] = [
                ([0xFF, 0xFF, 0xFF, 0xFF, 1, 2, 3, 4] + [UInt8](repeating: 7, count: 100), "declares 4294967295 bytes"),
                ([0x00, 0x00, 0x00, 0x04, 1, 2, 3, 4] + [UInt8](repeating: 7, count: 100), "declares 67108864 bytes, 100 present"),
                ([0x01, 0x00, 0x00, 0x04, 1, 2, 3, 4], "declares 67108865 bytes"),
                ([0, 0, 0, 0, 0, 0, 0, 0, 9], "declares 0 bytes"),
                ([5, 0, 0], "torn record header"),
            ]
            for tail in tails {
                try StorageFixtures.write(valid + tail.bytes, to: url)
                let (_, recovered, report) = try OpLogFile.open(at: url)
                #expect(recovered == ops)
                #expect(report.validBytes == boundaries.last!)
                #expect(report.droppedBytes == tail.bytes.count)
                #expect(report.reason?.contains(tail.reason) == true, "\(report.reason ?? "nil")")
                #expect(try StorageFixtures.contents(url) == valid)
            }
        }
    }

    @Test("A record whose checksum holds but which is not one op is dropped")
    func validChecksumWrongPayload() throws {
        let ops = StorageFixtures.workload(count: 4, seed: 2).ops
        try StorageFixtures.withScratchDirectory { dir in
            let url = dir.appendingPathComponent("ops.log")
            _ = try writeOpLog(ops, at: url)
            let valid = try StorageFixtures.contents(url)
            let twoOps = OpCodec.encode(Array(ops[0..<2]))
            for payload: [UInt8] in [twoOps, [0x00], [0x01, 0x09]] {
                var record: [UInt8] = []
                for value in [UInt32(payload.count), CRC32.checksum(payload)] {
                    record += [0, 8, 16, 24].map { UInt8(truncatingIfNeeded: value >> $0) }
                }
                try StorageFixtures.write(valid + record + payload, to: url)
                let (_, recovered, report) = try OpLogFile.open(at: url)
                #expect(recovered == ops)
                #expect(report.droppedBytes == record.count + payload.count)
                #expect(report.reason != nil)
            }
        }
    }

    @Test("A file that is not an op log is refused and left untouched")
    func foreignFiles() throws {
        try StorageFixtures.withScratchDirectory { dir in
            let url = dir.appendingPathComponent("photo.png")
            let foreign: [[UInt8]] = [
                [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + StorageFixtures.randomBytes(200, seed: 1),
                Array("GSLX".utf8) + [1, 0, 0, 0, 0, 0],
                Array("no".utf8),
            ]
            for bytes in foreign {
                try StorageFixtures.write(bytes, to: url)
                #expect(throws: StorageError.notAnOpLog(path: url.path)) { try OpLogFile.open(at: url) }
                #expect(try StorageFixtures.contents(url) == bytes)
            }
            let newer = Array("GSLG".utf8) + [2, 0] + [1, 2, 3]
            try StorageFixtures.write(newer, to: url)
            #expect(throws: StorageError.unsupportedVersion(path: url.path, version: 2)) { try OpLogFile.open(at: url) }
            #expect(try StorageFixtures.contents(url) == newer)
            #expect(StorageError.notAnOpLog(path: url.path).errorDescription?.contains(url.path) == true)
        }
    }

    @Test("An empty file or a header cut short by a crash is taken over and completed")
    func incompleteHeader() throws {
        try StorageFixtures.withScratchDirectory { dir in
            let url = dir.appendingPathComponent("ops.log")
            for length in 0..<OpLogFile.headerLength {
                try StorageFixtures.write(Array(OpLogFile.expectedHeader.prefix(length)), to: url)
                let (log, recovered, report) = try OpLogFile.open(at: url)
                #expect(recovered.isEmpty)
                #expect(report.droppedBytes == length && report.validBytes == OpLogFile.headerLength)
                #expect(log.byteCount == OpLogFile.headerLength)
                #expect(try StorageFixtures.contents(url) == OpLogFile.expectedHeader)
            }
        }
    }

    @Test("Records synced by one instance are all recovered by a second, without closing the first")
    func recoveredAfterCrash() throws {
        let ops = StorageFixtures.workload(count: 300, seed: 13).ops
        try StorageFixtures.withScratchDirectory { dir in
            let url = dir.appendingPathComponent("ops.log")
            let (first, _, _) = try OpLogFile.open(at: url)
            var index = 0
            while index < ops.count {
                let end = min(ops.count, index + 25)
                try first.appendAndSync(Array(ops[index..<end]))
                index = end
            }
            let (second, recovered, report) = try OpLogFile.open(at: url)
            #expect(recovered == ops)
            #expect(report.droppedBytes == 0 && report.records == ops.count)
            #expect(second.byteCount == first.byteCount)
            withExtendedLifetime(first) {}
        }
    }

    @Test("Concurrent appends from several threads all land as whole records")
    func concurrentAppends() throws {
        let ops = StorageFixtures.workload(count: 400, seed: 17).ops
        let threads = 4
        try StorageFixtures.withScratchDirectory { dir in
            let url = dir.appendingPathComponent("ops.log")
            let (log, _, _) = try OpLogFile.open(at: url)
            let shares = (0..<threads).map { share in stride(from: share, to: ops.count, by: threads).map { ops[$0] } }
            DispatchQueue.concurrentPerform(iterations: threads) { share in
                var index = 0
                while index < shares[share].count {
                    let end = min(shares[share].count, index + 10)
                    try? log.appendAndSync(Array(shares[share][index..<end]))
                    index = end
                }
            }
            #expect(log.recordCount == ops.count)
            let (_, recovered, report) = try OpLogFile.open(at: url)
            #expect(report.droppedBytes == 0)
            #expect(Set(recovered) == Set(ops) && recovered.count == ops.count)
            for share in shares {
                let members = Set(share)
                #expect(recovered.filter { members.contains($0) } == share)
            }
        }
    }
}
