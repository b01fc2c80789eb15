import Foundation
import GalleryIO

/// Where a node keeps image bytes, named by their SHA-256: what transfers, fetch serving and
/// commands ask of a blob store.
///
/// GalleryNode never imports GalleryStorage: GalleryHost conforms its `BlobStore` to this protocol,
/// so that the node core holds no files and a test can give it any store.
package protocol BlobSource: AnyObject, Sendable, KeptFileStore {
    /// What receives the bytes of one blob (`makeWriter`).
    associatedtype Writer: BlobSink
    /// What reads a stored blob (`openForReading`).
    associatedtype Reader: BlobReader

    /// Whether the store holds the blob.
    func contains(_ hash: String) -> Bool
    /// Starts (or resumes, from the bytes already held) receiving the blob `hash` of `size` bytes.
    ///
    /// - Throws: `StorageError.transferInProgress` while another writer receives it.
    func makeWriter(expecting hash: String, size: Int) throws(StorageError) -> Writer
    /// Opens a stored blob to read it.
    func openForReading(_ hash: String) throws(StorageError) -> Reader
    /// Removes a stored blob (an original evicted from the cache); nothing when it is not stored.
    func remove(_ hash: String) throws(StorageError)
    /// Stores a copy of a file; returns its SHA-256 (hex) and size.
    func put(contentsOf source: URL) throws(StorageError) -> (hash: String, size: Int)
    /// Takes a file the caller wrote, fsynced and hashed (an upload's bytes, received into the
    /// store's temporary directory) as the blob `hash` of `size` bytes: moved into place, not
    /// copied.
    func adopt(_ file: URL, hash: String, size: Int) throws(StorageError)
    /// Where the transfers into this store are recorded, to be resumed after a restart.
    var transferRecords: any TransferRecords { get }
    /// Stores durably the blobs of writers whose bytes `BlobSink.verify()` accepted, with as few
    /// flushes as the store can (one for the whole batch): once this returns, every one of them is
    /// durable under its name. Each writer may be made again afterwards, even when this throws.
    func store(verified writers: [any BlobSink]) throws(StorageError)
}

/// A store that keeps no file in place (test stores): `keep` refuses, nothing is reported; a
/// store that cannot move files in copies them (`adopt`).
extension BlobSource {
    package func adopt(_ file: URL, hash: String, size: Int) throws(StorageError) {
        let stored = try put(contentsOf: file)
        guard stored.hash == hash, stored.size == size else { throw .hashMismatch(expected: hash, actual: stored.hash) }
    }

    package func keep(_ files: [KeptFile]) throws(StorageError) {
        throw .io(operation: "keep files in place (this store keeps none)", path: files.first?.path ?? "", errno: ENOTSUP)
    }

    package func keptFiles() -> (count: Int, problems: [KeptFileProblem]) {
        (0, [])
    }

    package func keptFileProblem(for hash: String) -> String? {
        nil
    }

    /// A store with no batch of its own stores each blob alone (`BlobSink.storeVerified()`).
    package func store(verified writers: [any BlobSink]) throws(StorageError) {
        for writer in writers { try writer.storeVerified() }
    }
}
