/// One original fetched on demand and kept as a cache: evictable, least recently used first.
package struct CachedOriginal: Codable, Hashable, Sendable {
    package var hash: String
    package var size: Int
    /// When it was last read (seconds since 1970).
    package var lastUsed: Double

    package init(hash: String, size: Int, lastUsed: Double) {
        self.hash = hash
        self.size = size
        self.lastUsed = lastUsed
    }
}

/// Where a node records which of its originals are a cache, across restarts (GalleryStorage's
/// `ChecksummedFile`, `DIR/blobs/cache`).
package protocol OriginalCacheRecords: Sendable {
    /// The recorded cache; empty when none is recorded or the record is damaged (the blobs are
    /// then kept, never lost).
    func loadCache() -> [CachedOriginal]
    /// Replaces the record.
    func saveCache(_ entries: [CachedOriginal]) throws
}
