import Foundation
import GalleryCrypto
import GalleryIO
import GallerySimulation
@testable import GalleryStorage
import GalleryTestSupport
import Testing

/// Blob bytes written through the direct-I/O appender: intact and hashed once whatever the chunk
/// boundaries, across suspends and resumes at offsets inside a block, and with direct I/O refused.
@Suite("DirectAppender")
struct DirectAppenderTests {
    @Test("a blob received in random chunks, suspended and resumed at random offsets, is stored intact and verified")
    func randomBoundariesAndResumes() throws {
        try StorageFixtures.withScratchDirectory { dir in
            let store = try BlobStore(directory: dir)
            var generator = SeededGenerator(seed: 17)
            for round in 0..<5 {
                let size = Int.random(in: 1...(5 << 20), using: &generator)
                let bytes = StorageFixtures.randomBytes(size, seed: UInt64(100 + round))
                let hash = SHA256.hex(SHA256.hash(bytes))
                var writer = try store.makeWriter(expecting: hash, size: size)
                var offset = 0
                while offset < size {
                    let length = min(size - offset, Int.random(in: 1...(600 << 10), using: &generator))
                    try bytes[offset..<offset + length].withUnsafeBytes { try writer.append($0) }
                    offset += length
                    if Int.random(in: 0..<4, using: &generator) == 0 {
                        // Some bytes only staged, some in a partial block: all must reach the file.
                        if Bool.random(using: &generator) { try writer.checkpoint() }
                        writer.suspend()
                        writer = try store.makeWriter(expecting: hash, size: size)
                        #expect(writer.resumeOffset == offset, "round \(round): resumed at \(writer.resumeOffset), not \(offset)")
                    }
                }
                try writer.finish()
                #expect(try store.read(hash, offset: 0, length: size) == bytes, "round \(round), \(size) bytes")
            }
        }
    }

    @Test("bytes staged but not yet written reach the partial file when the writer is dropped")
    func droppedWriterKeepsItsBytes() throws {
        try StorageFixtures.withScratchDirectory { dir in
            let store = try BlobStore(directory: dir)
            let bytes = StorageFixtures.randomBytes(3 << 20, seed: 5)
            let hash = SHA256.hex(SHA256.hash(bytes))
            do {
                let writer = try store.makeWriter(expecting: hash, size: bytes.count)
                try writer.append(Array(bytes[0..<((1 << 20) + 123)]))
            }
            let writer = try store.makeWriter(expecting: hash, size: bytes.count)
            #expect(writer.resumeOffset == (1 << 20) + 123)
            try writer.append(Array(bytes[((1 << 20) + 123)...]))
            try writer.finish()
            #expect(try store.read(hash, offset: 0, length: bytes.count) == bytes)
        }
    }

    @Test("files copied into the store unsynced, then synced at once and installed as a batch, are the blobs")
    func batchInstall() throws {
        try StorageFixtures.withScratchDirectory { dir in
            let store = try BlobStore(directory: dir)
            var stored: [(temporary: String, hash: String)] = []
            var expected: [String: [UInt8]] = [:]
            for index in 0..<5 {
                // Two files with the same bytes: one blob.
                let bytes = index == 4
                    ? StorageFixtures.randomBytes(1_000_000, seed: 0)
                    : StorageFixtures.randomBytes(1_000_000 + index * 4_097, seed: UInt64(index))
                let source = dir.appendingPathComponent("source\(index).bin")
                try StorageFixtures.write(bytes, to: source)
                let copy = try store.store(contentsOf: source, sync: false)
                #expect(copy.size == bytes.count && copy.hash == SHA256.hex(SHA256.hash(bytes)))
                #expect(!store.contains(copy.hash))
                stored.append((copy.temporary, copy.hash))
                expected[copy.hash] = bytes
            }
            try store.syncFileSystem()
            try store.install(batch: stored)
            for (hash, bytes) in expected {
                #expect(try store.read(hash, offset: 0, length: bytes.count) == bytes)
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent("blobs/tmp").path).isEmpty)
            // A second opener that keeps temporary files does not remove another writer's.
            let pending = try store.store(contentsOf: dir.appendingPathComponent("source1.bin"), sync: false)
            _ = try BlobStore(directory: dir, removingTemporaryFiles: false)
            #expect(FileManager.default.fileExists(atPath: pending.temporary))
        }
    }
}
