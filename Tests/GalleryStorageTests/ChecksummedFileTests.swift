import Foundation
import GalleryStorage
import Testing

/// `ChecksummedFile` (the address book's file): a round trip, and every kind of damage reported
/// as damage, never used.
@Suite("checksummed files")
struct ChecksummedFileTests {
    struct Sample: Codable, Hashable, Sendable {
        var names: [String]
        var port: Int
    }

    static func withFile(_ body: (ChecksummedFile<Sample>) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("checksummed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try body(ChecksummedFile<Sample>(file: directory.appendingPathComponent("peers")))
    }

    @Test("absent, then saved and loaded; the file is mode 0600 and no temporary file is left")
    func roundTrip() throws {
        try Self.withFile { file in
            guard case .absent = file.load() else { Issue.record("a missing file is not absent"); return }
            let sample = Sample(names: ["alice", "bob"], port: 7001)
            try file.save(sample)
            try file.save(Sample(names: ["carol"], port: 7002))
            try file.save(sample)
            guard case .loaded(let loaded) = file.load() else { Issue.record("not loaded"); return }
            #expect(loaded == sample)
            let attributes = try FileManager.default.attributesOfItem(atPath: file.file.path)
            #expect((attributes[.posixPermissions] as? Int) == 0o600)
            #expect(!FileManager.default.fileExists(atPath: file.file.path + ".tmp"))
        }
    }

    @Test("a truncated file, a flipped byte anywhere, garbage and an empty file are each reported as damaged")
    func damage() throws {
        try Self.withFile { file in
            try file.save(Sample(names: ["alice", "bob"], port: 7001))
            let good = try Array(Data(contentsOf: file.file))
            var damaged: [(String, [UInt8])] = [("empty", []), ("garbage", Array("hello world, not a book".utf8))]
            for cut in [1, 8, 15, good.count / 2, good.count - 1] { damaged.append(("cut at \(cut)", Array(good.prefix(cut)))) }
            for index in stride(from: 0, to: good.count, by: 3) {
                var bytes = good
                bytes[index] ^= 0x20
                damaged.append(("byte \(index) flipped", bytes))
            }
            for (name, bytes) in damaged {
                try Data(bytes).write(to: file.file)
                guard case .damaged(let reason) = file.load() else {
                    Issue.record("\(name): not reported as damaged")
                    continue
                }
                #expect(!reason.isEmpty, "\(name)")
            }
        }
    }
}
