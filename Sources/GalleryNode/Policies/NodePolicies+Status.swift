import Foundation
import GalleryModel
import GalleryWire

/// The keep policy's bookkeeping as the node's adapters see it: originals read or fetched on
/// demand (the cache's recency and admissions), and what `status` says of the pictures held.
extension NodePolicies {
    /// One picture as the storage status counts it: its item, the replica that added it, and its original.
    struct CountedItem: Hashable {
        var id: String
        var adder: String
        var hash: String
        var size: Int
    }

    /// A reader read the original `hash` (a page's `GET /blobs/HASH`): the most recently used.
    package func originalRead(_ hash: String) {
        cache?.touch(hash)
    }

    /// An original a reader asked for arrived (`demandBytes`): under `--keep thumbnails` it is a
    /// cache entry, evicted when the budget needs its room and another node holds it.
    func originalFetchedOnDemand(_ hash: String, size: Int) {
        cache?.admit(hash, size: size)
    }

    /// What `node` holds of its pictures, and those it cannot show or fetch: reads the replica,
    /// the disk, and asks the connected peers which originals they hold (at most
    /// `AvailabilityBook.answerTimeout`): not on the node's loop. Nil without a blob store.
    package func storageStatus(of node: SyncNode) -> StorageStatus? {
        guard let blobs = node.configuration.blobs else { return nil }
        let items = node.read { replica in
            replica.galleries.flatMap { (try? replica.items(in: $0)) ?? [] }.compactMap { item in
                item.contentHash.map { CountedItem(id: item.id.description, adder: item.id.replica.description, hash: $0, size: Int(item.byteSize ?? 0)) }
            }
        }
        return storageStatus(of: items, holds: blobs.contains, thumbnails: node.thumbnails, holders: { availability.holders(of: $0) }) { adder in
            node.knownPeers.first { $0.replica == adder }.flatMap { $0.connectedSince == nil ? $0.name : nil }
        }
    }

    /// The storage status of `items`, the originals `holds` says are on this node's disk, the
    /// thumbnails made, and what the connected peers hold (`holders`); an item no one holds is
    /// said to be on its adder, offline, when `offlineName` names the adder's node.
    func storageStatus(of items: [CountedItem], holds: (String) -> Bool, thumbnails: ThumbnailMaker?,
                       holders: ([String]) -> [String: [String]], offlineName: (String) -> String?) -> StorageStatus {
        var sizes: [String: Int] = [:]
        for item in items { sizes[item.hash] = max(0, item.size) }
        let held = Set(sizes.keys.filter(holds))
        let heldBytes = held.reduce(0) { $0 + sizes[$1, default: 0] }
        let cached = held.filter { cache?.isCached($0) == true }.reduce(0) { $0 + sizes[$1, default: 0] }
        let usage = cache?.usage
        var noThumbnail: [StorageStatus.ItemProblem] = []
        var noThumbnailCount = 0
        var missing = 0
        if let thumbnails {
            for item in items {
                if let reason = thumbnails.derived.failure(of: item.hash) {
                    noThumbnailCount += 1
                    if noThumbnail.count < StorageStatus.listLimit {
                        noThumbnail.append(.init(item: item.id, hash: item.hash, reason: "not an image this node can decode: \(reason)"))
                    }
                } else if !thumbnails.isComplete(item.hash) {
                    missing += 1
                }
            }
        }
        let unheld = sizes.keys.filter { !held.contains($0) }.sorted()
        let holding = holders(unheld)
        var unavailable: [StorageStatus.ItemProblem] = []
        var unavailableCount = 0
        for item in items where !held.contains(item.hash) && holding[item.hash]?.isEmpty != false {
            unavailableCount += 1
            if unavailable.count < StorageStatus.listLimit {
                let reason = offlineName(item.adder).map { "on \($0), offline" } ?? "no connected peer holds the original"
                unavailable.append(.init(item: item.id, hash: item.hash, reason: reason))
            }
        }
        return StorageStatus(
            keep: keep.rawValue, heldBytes: heldBytes, keptBytes: heldBytes - cached, cachedBytes: cached,
            cacheBudget: cache?.budget, evicted: usage?.evicted ?? 0,
            keptOverBudget: usage?.lastCopies ?? 0, thumbnailBytes: thumbnails?.derived.storedBytes() ?? 0,
            thumbnailsMissing: missing, noThumbnail: noThumbnail, noThumbnailCount: noThumbnailCount,
            unavailable: unavailable, unavailableCount: unavailableCount)
    }
}
