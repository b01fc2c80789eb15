import Foundation
import GalleryCrypto
@testable import GalleryIO
@testable import GalleryStorage
import GalleryTestSupport
import Testing

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// Files kept in place (`add --in-place`): recorded durably, served only while their bytes hash to
/// the record's, reported when changed, truncated or removed.
@Suite("Files kept in place")
struct InPlaceFilesTests {
    /// Writes `bytes` at `path` and returns the record `add --in-place` would make of it.
    private func keep(_ bytes: [UInt8], at path: URL) throws -> InPlaceFiles.Record {
        try Data(bytes).write(to: path)
        var status = stat()
        #expect(stat(path.path, &status) == 0)
        return InPlaceFiles.Record(hash: SHA256.hex(SHA256.hash(bytes)), path: path.path, size: bytes.count, modified: InPlaceFiles.modified(status))
    }

    /// Sets the file's modification time back to `record`'s, as an editor that keeps it would.
    private func restoreTime(of record: InPlaceFiles.Record) {
        let seconds = record.modified / 1_000_000_000, nanoseconds = record.modified % 1_000_000_000
        var times = [timespec(tv_sec: Int(seconds), tv_nsec: Int(nanoseconds)), timespec(tv_sec: Int(seconds), tv_nsec: Int(nanoseconds))]
        #expect(utimensat(AT_FDCWD, record.path, &times, 0) == 0)
    }

    /// Reads a blob whole through the store, as a fetch or the blob route does.
    private func readWhole(_ store: BlobStore, _ hash: String) throws(StorageError) -> [UInt8] {
        let reader = try store.openForReading(hash)
        defer { reader.close() }
        try reader.verify()
        var bytes: [UInt8] = []
        while bytes.count < (try reader.size()) {
            bytes += try reader.read(count: 100_000, at: bytes.count)
        }
        return bytes
    }

    @Test("An intact file is served from where it is, with no copy in blobs/, and its record survives a reopening")
    func intact() throws {
        try StorageFixtures.withScratchDirectory { dir in
            let bytes = StorageFixtures.randomBytes(300_001, seed: 3)
            let record = try keep(bytes, at: dir.appendingPathComponent("photo.jpg"))
            let store = try BlobStore(directory: dir.appendingPathComponent("node"))
            #expect(!store.contains(record.hash))
            try store.inPlace.add([record])
            #expect(store.contains(record.hash) && store.size(of: record.hash) == bytes.count)
            #expect(try readWhole(store, record.hash) == bytes)
            #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("node/blobs/\(record.hash.prefix(2))/\(record.hash)").path))
            #expect(store.inPlace.problems().isEmpty)

            // A torn last line (a crash mid-append) is left out; the intact record is read back.
            let file = dir.appendingPathComponent("node/in-place")
            let handle = try FileHandle(forWritingTo: file)
            try handle.seekToEnd()
            try handle.write(contentsOf: Data("0badc0de {\"hash\":\"ab".utf8))
            try handle.close()
            let reopened = try BlobStore(directory: dir.appendingPathComponent("node"))
            #expect(reopened.inPlace.count == 1)
            #expect(try readWhole(reopened, record.hash) == bytes)
        }
    }

    @Test("A truncated, removed or grown file is not served and is reported, with why")
    func changedBySizeOrGone() throws {
        try StorageFixtures.withScratchDirectory { dir in
            let store = try BlobStore(directory: dir.appendingPathComponent("node"))
            let truncated = try keep(StorageFixtures.randomBytes(50_000, seed: 4), at: dir.appendingPathComponent("a.png"))
            let removed = try keep(StorageFixtures.randomBytes(50_000, seed: 5), at: dir.appendingPathComponent("b.png"))
            try store.inPlace.add([truncated, removed])
            #expect(truncate(truncated.path, 1_000) == 0)
            #expect(unlink(removed.path) == 0)
            for record in [truncated, removed] {
                #expect(!store.contains(record.hash))
                #expect(throws: StorageError.self) { try store.openForReading(record.hash) }
            }
            let problems = store.inPlace.problems()
            #expect(problems.map(\.record) == [truncated, removed])
            #expect(problems.map(\.reason) == ["changed on disk (size 50000 -> 1000 bytes)", "gone"])
        }
    }

    @Test("A file changed in place with its size and time kept is refused when read: its bytes no longer hash to the record's")
    func changedInPlace() throws {
        try StorageFixtures.withScratchDirectory { dir in
            let store = try BlobStore(directory: dir.appendingPathComponent("node"))
            var bytes = StorageFixtures.randomBytes(2_500_000, seed: 6)
            let record = try keep(bytes, at: dir.appendingPathComponent("c.jpg"))
            try store.inPlace.add([record])
            bytes[1_234_567] ^= 0xFF
            try Data(bytes).write(to: URL(fileURLWithPath: record.path))
            restoreTime(of: record)
            #expect(store.contains(record.hash), "size and time alone cannot tell")
            let reader = try store.openForReading(record.hash)
            defer { reader.close() }
            #expect(throws: StorageError.hashMismatch(expected: record.hash, actual: SHA256.hex(SHA256.hash(bytes)))) { try reader.verify() }
            #expect(throws: StorageError.self) { try reader.read(count: 10, at: 0) }
            #expect(!store.contains(record.hash))
            #expect(store.inPlace.problems().first?.reason.hasPrefix("changed on disk (its bytes no longer hash to") == true)

            // The original bytes put back (size and time as recorded): looked at anew, served again.
            bytes[1_234_567] ^= 0xFF
            try Data(bytes).write(to: URL(fileURLWithPath: record.path))
            restoreTime(of: record)
            #expect(store.inPlace.problems().isEmpty)
            #expect(try readWhole(store, record.hash) == bytes)
        }
    }

    @Test("A file changed while it is streamed: the read reaching its end fails, so no whole answer carries other bytes")
    func changedWhileStreamed() throws {
        try StorageFixtures.withScratchDirectory { dir in
            let store = try BlobStore(directory: dir.appendingPathComponent("node"))
            var bytes = StorageFixtures.randomBytes(200_000, seed: 7)
            let record = try keep(bytes, at: dir.appendingPathComponent("d.gif"))
            try store.inPlace.add([record])
            let reader = try store.openForReading(record.hash)
            defer { reader.close() }
            #expect(try reader.read(count: 100_000, at: 0) == Array(bytes[0..<100_000]))
            bytes[150_000] ^= 0x01
            try Data(bytes).write(to: URL(fileURLWithPath: record.path), options: [])
            #expect(throws: StorageError.self) { try reader.read(count: 100_000, at: 100_000) }
            #expect(!store.contains(record.hash))
        }
    }

    @Test("The importer copies small and large files with their hashes, refuses what inspect refuses, and installs them durably")
    func importer() throws {
        try StorageFixtures.withScratchDirectory { dir in
            let store = try BlobStore(directory: dir.appendingPathComponent("node"))
            let importer = BlobImporter(store: store)
            let buffer = BlobImporter.Buffer()
            let small = StorageFixtures.randomBytes(4_096, seed: 8), large = StorageFixtures.randomBytes(3 * (1 << 20) + 5, seed: 9)
            var batch: [BlobImporter.Stored] = []
            for (name, bytes) in [("small", small), ("large", large), ("exact", Array(large[0..<(1 << 20)]))] {
                let path = dir.appendingPathComponent(name).path
                try Data(bytes).write(to: URL(fileURLWithPath: path))
                guard case .stored(let stored) = try importer.store(path, buffer: buffer, inspect: { _ in nil }) else {
                    Issue.record("\(name) not stored")
                    continue
                }
                #expect(stored.hash == SHA256.hex(SHA256.hash(bytes)) && stored.size == bytes.count)
                batch.append(stored)
                guard case .hashed(let print) = BlobImporter.fingerprint(path, buffer: buffer, inspect: { _ in nil }) else {
                    Issue.record("\(name) not hashed")
                    continue
                }
                #expect(print.hash == stored.hash && print.size == bytes.count)
            }
            let refused = try importer.store(dir.appendingPathComponent("small").path, buffer: buffer) { head in
                head.count == 4_096 ? "not an image" : nil
            }
            guard case .skipped("not an image") = refused else { throw StorageError.invalidHash("refused file stored") }
            guard case .skipped = try importer.store(dir.appendingPathComponent("missing").path, buffer: buffer, inspect: { _ in nil }) else {
                throw StorageError.invalidHash("missing file stored")
            }
            try importer.install(batch)
            #expect(try store.read(batch[0].hash, offset: 0, length: 10_000) == small)
            #expect(try store.read(batch[1].hash, offset: 0, length: large.count) == large)
            #expect(store.size(of: batch[2].hash) == 1 << 20)
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent("node/blobs/tmp").path).isEmpty)
        }
    }

    @Test("adopt: an upload's file in tmp/ becomes the blob by a rename; one elsewhere is copied and checked; a wrong size is refused")
    func adopt() throws {
        try StorageFixtures.withScratchDirectory { dir in
            let store = try BlobStore(directory: dir.appendingPathComponent("node"))
            let bytes = StorageFixtures.randomBytes(70_000, seed: 10), hash = SHA256.hex(SHA256.hash(bytes))
            let received = dir.appendingPathComponent("node/blobs/tmp/upload-1.tmp")
            try Data(bytes).write(to: received)
            var before = stat()
            #expect(stat(received.path, &before) == 0)
            try store.adopt(received, hash: hash, size: bytes.count)
            var after = stat()
            #expect(stat(dir.appendingPathComponent("node/blobs/\(hash.prefix(2))/\(hash)").path, &after) == 0)
            #expect(after.st_ino == before.st_ino, "moved, not copied")
            #expect(!FileManager.default.fileExists(atPath: received.path))

            let elsewhere = dir.appendingPathComponent("elsewhere.bin"), other = StorageFixtures.randomBytes(5_000, seed: 11)
            try Data(other).write(to: elsewhere)
            try store.adopt(elsewhere, hash: SHA256.hex(SHA256.hash(other)), size: other.count)
            #expect(try store.read(SHA256.hex(SHA256.hash(other)), offset: 0, length: 10_000) == other)
            #expect(throws: StorageError.self) { try store.adopt(elsewhere, hash: String(repeating: "a", count: 64), size: other.count) }

            let short = dir.appendingPathComponent("node/blobs/tmp/upload-2.tmp")
            try Data(other).write(to: short)
            #expect(throws: StorageError.sizeMismatch(hash: SHA256.hex(SHA256.hash(other)), expected: 6_000, actual: 5_000)) {
                try store.adopt(short, hash: SHA256.hex(SHA256.hash(other)), size: 6_000)
            }
        }
    }
}
