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
    /// Drops the bytes received.
    func cancel()
    /// Stops receiving, keeping the bytes held for a later resume.
    func suspend()
}
