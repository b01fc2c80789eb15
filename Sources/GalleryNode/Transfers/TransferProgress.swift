import GalleryModel

/// How far the bytes of one placeholder are: what `watch` reports as `progress`.
public struct TransferProgress: Hashable, Sendable {
    /// The transfer (the placeholder's ID).
    public var transfer: OpID
    /// Bytes received and hashed.
    public var done: Int
    /// All the bytes.
    public var total: Int
}
