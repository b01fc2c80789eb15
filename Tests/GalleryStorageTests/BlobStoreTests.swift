import Foundation
import GalleryCrypto
@testable import GalleryIO
import GallerySimulation
@testable import GalleryStorage
import GalleryTestSupport
import Synchronization
import Testing

/// The content-addressed blob store: stored once, verified before renaming, ranges, transfers.
@Suite("BlobStore")
struct BlobStoreTests {
    private func temporaryFiles(_ dir: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent("blobs/tmp").path)
    }

    private func inode(_ path: String) throws -> Int? {
        try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? Int
    }

    @Test("Identical bytes are stored once, under blobs/ab/abcdef…")
    func storedOnce() throws {
        try StorageFixtures.withScratchDirectory { dir in
            let store = try BlobStore(directory: dir)
            let bytes = StorageFixtures.randomBytes(3 * 1024 * 1024 + 17, seed: 1)
            let hash = try store.put(bytes)
            #expect(hash == SHA256.hex(SHA256.hash(bytes)))
            let path = dir.appendingPathComponent("blobs/\(hash.prefix(2))/\(hash)").path
            #expect(try StorageFixtures.contents(URL(fileURLWithPath: path)) == bytes)
            let firstInode = try inode(path)
            #expect(try store.put(bytes) == hash)
            #expect(try inode(path) == firstInode)
            #expect(store.contains(hash) && store.size(of: hash) == bytes.count)
            #expect(try temporaryFiles(dir).isEmpty)

            let empty = try store.put([])
            #expect(empty == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
            #expect(store.size(of: empty) == 0)

            let source = dir.appendingPathComponent("source.bin")
            try StorageFixtures.write(bytes, to: source)
            let streamed = try store.put(contentsOf: source)
            #expect(streamed.hash == hash && streamed.size == bytes.count)
            #expect(try inode(path) == firstInode)
            let other = StorageFixtures.randomBytes(2 * 1024 * 1024, seed: 2)
            try StorageFixtures.write(other, to: source)
            let second = try store.put(contentsOf: source)
            #expect(second.hash == SHA256.hex(SHA256.hash(other)) && second.size == other.count)
            #expect(try store.read(second.hash, offset: 0, length: other.count) == other)
            #expect(try temporaryFiles(dir).isEmpty)
        }
    }

    @Test("Ranges read back exactly; bad hashes and ranges are refused")
    func ranges() throws {
        try StorageFixtures.withScratchDirectory { dir in
            let store = try BlobStore(directory: dir)
            let bytes = StorageFixtures.randomBytes(100_000, seed: 3)
            let hash = try store.put(bytes)
            var generator = SeededGenerator(seed: 4)
            for _ in 0..<50 {
                let offset = Int.random(in: 0...bytes.count, using: &generator)
                let length = Int.random(in: 0...70_000, using: &generator)
                let expected = Array(bytes[offset..<min(bytes.count, offset + length)])
                #expect(try store.read(hash, offset: offset, length: length) == expected)
            }
            #expect(throws: StorageError.rangeOutOfBounds(hash: hash, offset: bytes.count + 1, length: 1, size: bytes.count)) {
                try store.read(hash, offset: bytes.count + 1, length: 1)
            }
            #expect(throws: StorageError.rangeOutOfBounds(hash: hash, offset: -1, length: 1, size: bytes.count)) {
                try store.read(hash, offset: -1, length: 1)
            }
            let missing = String(repeating: "0", count: 64)
            #expect(throws: StorageError.blobNotFound(missing)) { try store.read(missing, offset: 0, length: 1) }
            for bad in ["../../etc/passwd", hash.uppercased(), String(hash.dropLast()), hash + "0", "tmp", ""] {
                #expect(!store.contains(bad) && store.size(of: bad) == nil)
                #expect(throws: StorageError.invalidHash(bad)) { try store.read(bad, offset: 0, length: 1) }
                #expect(throws: StorageError.invalidHash(bad)) { try store.makeWriter(expecting: bad, size: 1) }
            }
        }
    }

    @Test("A transfer is verified before it becomes a blob; a wrong one leaves nothing behind")
    func writers() throws {
        try StorageFixtures.withScratchDirectory { dir in
            let store = try BlobStore(directory: dir)
            let bytes = StorageFixtures.randomBytes(300_000, seed: 5)
            let hash = SHA256.hex(SHA256.hash(bytes))

            var wrong = bytes
            wrong[12_345] ^= 1
            let bad = try store.makeWriter(expecting: hash, size: bytes.count)
            #expect(bad.resumeOffset == 0)
            for start in stride(from: 0, to: wrong.count, by: 65_536) {
                try bad.append(Array(wrong[start..<min(wrong.count, start + 65_536)]))
            }
            #expect(throws: StorageError.hashMismatch(expected: hash, actual: SHA256.hex(SHA256.hash(wrong)))) {
                try bad.finish()
            }
            #expect(!store.contains(hash))
            #expect(try temporaryFiles(dir).isEmpty)
            #expect(throws: StorageError.self) { try bad.append([1]) }

            let long = try store.makeWriter(expecting: hash, size: bytes.count)
            #expect(throws: StorageError.sizeMismatch(hash: hash, expected: bytes.count, actual: bytes.count + 1)) {
                try long.append(bytes + [0])
            }
            #expect(!store.contains(hash))
            #expect(try temporaryFiles(dir).isEmpty)

            let writer = try store.makeWriter(expecting: hash, size: bytes.count)
            #expect(throws: StorageError.transferInProgress(hash)) { try store.makeWriter(expecting: hash, size: bytes.count) }
            try writer.append(Array(bytes[..<1000]))
            #expect(throws: StorageError.sizeMismatch(hash: hash, expected: bytes.count, actual: 1000)) { try writer.finish() }
            try writer.append(Array(bytes[1000...]))
            try writer.finish()
            #expect(store.size(of: hash) == bytes.count)
            #expect(try store.read(hash, offset: 0, length: bytes.count) == bytes)
            #expect(try temporaryFiles(dir).isEmpty)
        }
    }

    @Test("A suspended transfer resumes after a restart from the bytes it held; stale temp files go")
    func resume() throws {
        try StorageFixtures.withScratchDirectory { dir in
            let bytes = StorageFixtures.randomBytes(2_500_000, seed: 6)
            let hash = SHA256.hex(SHA256.hash(bytes))
            do {
                let store = try BlobStore(directory: dir)
                let writer = try store.makeWriter(expecting: hash, size: bytes.count)
                try writer.append(Array(bytes[..<1_200_000]))
                try writer.checkpoint()
                writer.suspend()
            }
            let stale = dir.appendingPathComponent("blobs/tmp/1234.tmp")
            try StorageFixtures.write([1, 2, 3], to: stale)
            let store = try BlobStore(directory: dir)
            #expect(try temporaryFiles(dir) == ["\(hash).partial"])
            let writer = try store.makeWriter(expecting: hash, size: bytes.count)
            #expect(writer.resumeOffset == 1_200_000 && writer.receivedCount == 1_200_000)
            try writer.append(Array(bytes[writer.resumeOffset...]))
            try writer.finish()
            #expect(try store.read(hash, offset: 0, length: bytes.count) == bytes)
            #expect(try temporaryFiles(dir).isEmpty)

            // A writer dropped without finishing keeps its partial file and frees the hash.
            let other = StorageFixtures.randomBytes(1000, seed: 7)
            let otherHash = SHA256.hex(SHA256.hash(other))
            do {
                let dropped = try store.makeWriter(expecting: otherHash, size: other.count)
                try dropped.append(Array(other[..<10]))
            }
            let resumed = try store.makeWriter(expecting: otherHash, size: other.count)
            #expect(resumed.resumeOffset == 10)
            resumed.cancel()
            #expect(try temporaryFiles(dir).isEmpty)
            _ = try BlobStore(directory: dir, keepPartialTransfers: false)
        }
    }

    @Test("Concurrent puts of the same bytes from several threads store one blob")
    func concurrentPuts() throws {
        try StorageFixtures.withScratchDirectory { dir in
            let store = try BlobStore(directory: dir)
            let bytes = StorageFixtures.randomBytes(400_000, seed: 8)
            let distinct = (0..<8).map { StorageFixtures.randomBytes(10_000, seed: 100 + UInt64($0)) }
            let hashes = Mutex<[String]>([])
            DispatchQueue.concurrentPerform(iterations: 8) { index in
                let same = try? store.put(bytes)
                let own = try? store.put(distinct[index])
                hashes.withLock { $0 += [same ?? "failed", own ?? "failed"] }
            }
            let hash = SHA256.hex(SHA256.hash(bytes))
            let results = hashes.withLock { $0 }
            #expect(results.filter { $0 == hash }.count == 8)
            #expect(Set(results).count == 9 && !results.contains("failed"))
            let fanOut = dir.appendingPathComponent("blobs/\(hash.prefix(2))").path
            #expect(try FileManager.default.contentsOfDirectory(atPath: fanOut).filter { $0 == hash }.count == 1)
            #expect(try store.read(hash, offset: 0, length: bytes.count) == bytes)
            for blob in distinct { #expect(store.contains(SHA256.hex(SHA256.hash(blob)))) }
            #expect(try temporaryFiles(dir).isEmpty)
        }
    }
}
