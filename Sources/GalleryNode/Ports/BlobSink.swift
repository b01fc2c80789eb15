import GalleryIO

/// Receives the bytes of one blob as they arrive, hashing them, and stores the blob once whole and
/// verified (`BlobSource.makeWriter`).
package protocol BlobSink: AnyObject, Sendable {
    /// The SHA-256 (hex) the bytes must have.
    var hash: String { get }
    /// The blob's whole size.
    var size: Int { get }
    /// The bytes already held when the writer was made (a resumed transfer).
    var resumeOffset: Int { get }
    /// The bytes held so far.
    var receivedCount: Int { get }

    /// Appends the next bytes.
    func append(_ bytes: [UInt8]) throws(StorageError)
    /// Makes the bytes held so far durable, so that a restart resumes after them.
    func checkpoint() throws(StorageError)
    /// Verifies size and hash and stores the blob.
    ///
    /// - Throws: `StorageError.hashMismatch` or `.sizeMismatch` for wrong bytes.
    func finish() throws(StorageError)
    /// Verifies size and hash and writes the bytes out without storing the blob yet:
    /// `BlobSource.store(verified:)` then makes a batch of such blobs durable and stores them
    /// together (one flush for the batch, not one per blob).
    ///
    /// - Throws: `StorageError.hashMismatch` or `.sizeMismatch` for wrong bytes.
    func verify() throws(StorageError)
    /// Stores alone, durably, a blob that `verify()` accepted (what `BlobSource.store(verified:)`
    /// does for a store with no batch of its own).
    func storeVerified() throws(StorageError)
    /// Drops the bytes received.
    func cancel()
    /// Stops receiving, keeping the bytes held for a later resume.
    func suspend()
}

/// A sink with no batch of its own stores the blob as it verifies it (`finish()`), so that
/// `BlobSource.store(verified:)` has nothing left to do.
extension BlobSink {
    package func verify() throws(StorageError) {
        try finish()
    }

    package func storeVerified() throws(StorageError) {}
}
