import GalleryModel

/// How far the bytes of one placeholder are: what `watch` reports as `progress`.
package struct TransferProgress: Hashable, Sendable {
    /// The transfer (the placeholder's ID).
    package var transfer: OpID
    /// Bytes received and hashed.
    package var done: Int
    /// All the bytes.
    package var total: Int
}
