/// What a node holds of its pictures, as `status --json` prints it (`storage`): originals held,
/// kept and cached under its policy, thumbnails, and the pictures it cannot show or fetch.
package struct StorageStatus: Codable, Hashable, Sendable {
    /// An item and why: a picture with no thumbnail, or whose original no reachable node holds.
    package struct ItemProblem: Codable, Hashable, Sendable {
        package var item: String
        package var hash: String
        package var reason: String

        package init(item: String, hash: String, reason: String) {
            self.item = item
            self.hash = hash
            self.reason = reason
        }
    }

    /// The most items listed in each list (the counts are whole).
    package static let listLimit = 100

    /// `all` or `thumbnails` (`serve --keep`).
    package var keep: String
    /// Bytes of the originals the items name that this node holds.
    package var heldBytes: Int
    /// Of those, bytes kept for good (added, uploaded or dragged here, or all under `--keep all`).
    package var keptBytes: Int
    /// Of those, bytes fetched on demand and evictable (`--cache-budget`).
    package var cachedBytes: Int
    /// The cache budget in bytes; nil: no limit.
    package var cacheBudget: Int?
    /// Originals evicted from the cache since the node started.
    package var evicted: Int
    /// Cached originals kept over the budget at the last eviction pass because no connected peer holds them.
    package var keptOverBudget: Int
    /// Bytes of the thumbnails held.
    package var thumbnailBytes: Int
    /// Pictures whose thumbnails this node does not hold yet (being made or fetched).
    package var thumbnailsMissing: Int
    /// Pictures this node cannot make a thumbnail of, and why (at most `listLimit`), and their count.
    package var noThumbnail: [ItemProblem]
    package var noThumbnailCount: Int
    /// Items whose originals neither this node nor any connected peer holds (at most `listLimit`), and their count.
    package var unavailable: [ItemProblem]
    package var unavailableCount: Int

    package init(keep: String, heldBytes: Int, keptBytes: Int, cachedBytes: Int, cacheBudget: Int?, evicted: Int, keptOverBudget: Int, thumbnailBytes: Int,
                 thumbnailsMissing: Int, noThumbnail: [ItemProblem], noThumbnailCount: Int, unavailable: [ItemProblem], unavailableCount: Int) {
        self.keep = keep
        self.heldBytes = heldBytes
        self.keptBytes = keptBytes
        self.cachedBytes = cachedBytes
        self.cacheBudget = cacheBudget
        self.evicted = evicted
        self.keptOverBudget = keptOverBudget
        self.thumbnailBytes = thumbnailBytes
        self.thumbnailsMissing = thumbnailsMissing
        self.noThumbnail = noThumbnail
        self.noThumbnailCount = noThumbnailCount
        self.unavailable = unavailable
        self.unavailableCount = unavailableCount
    }
}
