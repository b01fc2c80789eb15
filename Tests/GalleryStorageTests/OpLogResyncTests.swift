import Foundation
@testable import GalleryStorage
import GalleryTestSupport
import Testing

/// Resynchronisation after damage in the op log: bounded work on crafted bytes, and the last intact
/// record kept when a torn tail follows it.
@Suite("OpLogFile resynchronisation")
struct OpLogResyncTests {
    @Test("A crafted region where every offset declares a 16 MB record costs work linear in the file, not a stalled start")
    func craftedRegionIsBounded() throws {
        let ops = StorageFixtures.workload(count: 20, seed: 11).ops
        try StorageFixtures.withScratchDirectory { dir in
            let url = dir.appendingPathComponent("crafted.log")
            let boundaries = try writeOpLog(ops, at: url)
            let full = try StorageFixtures.contents(url)
            // 0x01 bytes: at every offset a length of 0x01010101 (16.8 MB, within the file) and an
            // op count of 1 pass the cheap filters, so each candidate would be checksummed whole.
            let crafted = [UInt8](repeating: 0x01, count: 24 << 20)
            let bytes = Array(full[..<boundaries[10]]) + crafted + full[boundaries[10]...]
            try StorageFixtures.write(bytes, to: url)
            let started = Date()
            let (_, recovered, report) = try OpLogFile.open(at: url)
            let seconds = Date().timeIntervalSince(started)
            #expect(Array(recovered.prefix(10)) == Array(ops[..<10]), "the records before the damage are kept")
            #expect(report.lostRecords && !report.damage.isEmpty, "the damage is reported")
            // Without the budget this takes about 10^6 checksums of 16.8 MB each (days); with it,
            // a few hundred MB of checksums at most.
            #expect(seconds < 30, "resynchronisation took \(seconds) s")
        }
    }

    @Test("The last intact record before a torn tail is kept: [A][damaged B][C][torn D] keeps A and C")
    func intactRecordBeforeTornTail() throws {
        let ops = StorageFixtures.workload(count: 4, seed: 12).ops
        try StorageFixtures.withScratchDirectory { dir in
            let url = dir.appendingPathComponent("torn.log")
            let boundaries = try writeOpLog(ops, at: url)
            var bytes = try StorageFixtures.contents(url)
            // Flip a payload byte of B (record 1), then cut D (record 3) in half.
            bytes[boundaries[1] + OpLogFile.recordHeaderLength + 1] ^= 0x5A
            bytes = Array(bytes[..<((boundaries[3] + boundaries[4]) / 2)])
            try StorageFixtures.write(bytes, to: url)
            let (_, recovered, report) = try OpLogFile.open(at: url)
            #expect(recovered == [ops[0], ops[2]])
            #expect(report.lostRecords)
        }
    }
}
