import GalleryIO

/// A stored blob opened for reading (`BlobSource.openForReading`), read a range at a time.
package protocol BlobReader: Sendable {
    /// Where the blob is, for messages.
    var path: String { get }
    /// The blob's size.
    func size() throws(StorageError) -> Int
    /// Up to `count` bytes from `offset` (fewer at the end).
    func read(count: Int, at offset: Int) throws(StorageError) -> [UInt8]
    /// Closes the blob; no read follows.
    func close()
    /// Checks the bytes before any is sent (a file kept in place is hashed whole against its
    /// hash); throws when they are not the blob's.
    func verify() throws(StorageError)
}

extension BlobReader {
    /// A blob of the store was verified when it was stored.
    package func verify() throws(StorageError) {}
}
