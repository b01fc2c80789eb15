import Foundation
import GalleryCrypto
import GalleryIO
import GalleryNode
import Synchronization

/// A node's blob store in memory, outliving the node's crashes: what transfers fetch into and
/// serve from in a simulation. Bytes are hashed as they arrive and stored only whole and verified,
/// as `BlobStore` does; the transfer journal is a list in memory. The simulation runs on one
/// thread: the locks are never contended, they let the compiler check the types.
package final class SimulatedBlobStore: BlobSource, Sendable {
    /// The blobs held, and the writers receiving one, by hash.
    private let held = Mutex<(blobs: [String: [UInt8]], receiving: Set<String>)>(([:], []))
    private let records = Records()

    /// The blobs held, by hash.
    var blobs: [String: [UInt8]] { held.withLock { $0.blobs } }

    package init() {}

    /// Stores `bytes`; returns their hash.
    @discardableResult
    package func put(_ bytes: [UInt8]) -> String {
        let hash = SHA256.hex(SHA256.hash(bytes))
        held.withLock { $0.blobs[hash] = bytes }
        return hash
    }

    package var transferRecords: any TransferRecords { records }

    package func contains(_ hash: String) -> Bool { held.withLock { $0.blobs[hash] != nil } }

    package func makeWriter(expecting hash: String, size: Int) throws(StorageError) -> Writer {
        guard held.withLock({ $0.receiving.insert(hash).inserted }) else { throw .transferInProgress(hash) }
        return Writer(store: self, hash: hash, size: size)
    }

    package func openForReading(_ hash: String) throws(StorageError) -> Reader {
        guard let bytes = held.withLock({ $0.blobs[hash] }) else { throw .blobNotFound(hash) }
        return Reader(bytes: bytes, path: "memory:\(hash.prefix(12))")
    }

    package func remove(_ hash: String) throws(StorageError) {
        held.withLock { $0.blobs[hash] = nil }
    }

    package func put(contentsOf source: URL) throws(StorageError) -> (hash: String, size: Int) {
        throw .io(operation: "read a file (a simulated store holds no files)", path: source.path, errno: ENOTSUP)
    }

    /// A writer is done with `hash` (stored, cancelled or suspended).
    fileprivate func released(_ hash: String, bytes: [UInt8]?) {
        held.withLock { held in
            held.receiving.remove(hash)
            if let bytes { held.blobs[hash] = bytes }
        }
    }

    /// Receives one blob in memory.
    package final class Writer: BlobSink, Sendable {
        private let store: SimulatedBlobStore
        package let hash: String
        package let size: Int
        package var resumeOffset: Int { 0 }
        package var receivedCount: Int { bytes.withLock { $0.count } }
        private let bytes = Mutex<[UInt8]>([])

        fileprivate init(store: SimulatedBlobStore, hash: String, size: Int) {
            self.store = store
            self.hash = hash
            self.size = size
        }

        package func append(_ more: [UInt8]) throws(StorageError) {
            try bytes.withLock { bytes throws(StorageError) in
                guard bytes.count + more.count <= size else {
                    throw .sizeMismatch(hash: hash, expected: size, actual: bytes.count + more.count)
                }
                bytes += more
            }
        }

        package func checkpoint() throws(StorageError) {}

        package func finish() throws(StorageError) {
            let received = bytes.withLock { $0 }
            guard received.count == size else { throw .sizeMismatch(hash: hash, expected: size, actual: received.count) }
            let actual = SHA256.hex(SHA256.hash(received))
            guard actual == hash else {
                bytes.withLock { $0 = [] }
                store.released(hash, bytes: nil)
                throw .hashMismatch(expected: hash, actual: actual)
            }
            store.released(hash, bytes: received)
        }

        package func cancel() {
            bytes.withLock { $0 = [] }
            store.released(hash, bytes: nil)
        }

        package func suspend() {
            store.released(hash, bytes: nil)
        }
    }

    /// Reads a blob held in memory.
    package struct Reader: BlobReader {
        let bytes: [UInt8]
        package let path: String

        package func size() throws(StorageError) -> Int { bytes.count }

        package func read(count: Int, at offset: Int) throws(StorageError) -> [UInt8] {
            guard offset >= 0, offset <= bytes.count else {
                throw .rangeOutOfBounds(hash: path, offset: offset, length: count, size: bytes.count)
            }
            return Array(bytes[offset..<min(bytes.count, offset + max(0, count))])
        }

        package func close() {}
    }

    /// The transfer journal, in memory.
    final class Records: TransferRecords, Sendable {
        private let saved = Mutex<[Transfer]>([])
        var location: String { "memory" }
        func load() -> [Transfer] { saved.withLock { $0 } }
        func save(_ transfers: [Transfer]) throws { saved.withLock { $0 = transfers } }
    }
}
