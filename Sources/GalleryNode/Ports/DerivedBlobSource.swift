import GalleryIO

/// Where a node keeps blobs derived from its originals (thumbnails), named by the original's hash
/// and the thumbnail's long edge, and why an original yields none (GalleryStorage's
/// `DerivedBlobStore`, `DIR/blobs/derived/`).
package protocol DerivedBlobSource: AnyObject, Sendable {
    /// The thumbnail of `hash` whose long edge is at most `size`, or nil when none is stored.
    func thumbnail(of hash: String, size: Int) -> [UInt8]?
    /// Whether the thumbnail is stored (without reading it).
    func hasThumbnail(of hash: String, size: Int) -> Bool
    /// Stores a thumbnail, whole or not at all (written to a temporary file, renamed into place).
    func storeThumbnail(_ jpeg: [UInt8], of hash: String, size: Int) throws(StorageError)
    /// Why no thumbnail can be made of `hash` here, when making one failed.
    func failure(of hash: String) -> String?
    /// Records why no thumbnail can be made of `hash`, so that it is not tried again.
    func recordFailure(_ reason: String, of hash: String) throws(StorageError)
    /// The bytes of every derived blob stored.
    func storedBytes() -> Int
}
