import GalleryIO
import GalleryWire

extension StatusCommand {
    /// The lines of `status` about originals and thumbnails: held, kept, cached, and the pictures
    /// this node cannot show or fetch, with why.
    static func storageLines(_ storage: StorageStatus) -> String {
        let budget = storage.cacheBudget.map { " of a \($0)-byte budget" } ?? ""
        var lines = "originals (keep \(storage.keep)): \(storage.heldBytes) bytes held, \(storage.keptBytes) kept, "
            + "\(storage.cachedBytes) cached\(budget), \(storage.evicted) evicted, "
            + "\(storage.keptOverBudget) kept over budget (no reachable node holds them)\n"
            + "thumbnails: \(storage.thumbnailBytes) bytes, \(storage.thumbnailsMissing) pictures still without\n"
        if storage.noThumbnailCount > 0 {
            lines += "no thumbnail (\(storage.noThumbnailCount)):\n"
            lines += storage.noThumbnail.map { "  \($0.item): \(TerminalText.escaped($0.reason))\n" }.joined()
        }
        if storage.unavailableCount > 0 {
            lines += "originals no reachable node holds (\(storage.unavailableCount)):\n"
            lines += storage.unavailable.map { "  \($0.item): \(TerminalText.escaped($0.reason))\n" }.joined()
        }
        return lines
    }
}
