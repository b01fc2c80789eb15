import Foundation
import GalleryModel
import GalleryWire

/// The keep policy as the node applies it: originals fetched eagerly (`--keep all`) or cached when
/// read (`--keep thumbnails`), and what `status` says of them.
extension SyncNode {
    /// Fetches the original `hash` that an item names for good (`--keep all`): not a cache entry.
    /// False, calling nothing, when no item names it.
    func fetchOriginal(_ hash: String, answer: @escaping TransferManager.DemandAnswer) -> Bool {
        guard let transfers, let item = read({ $0.item(withContentHash: hash) }), let size = item.byteSize, size >= 0 else { return false }
        transfers.demand(hash, size: Int(size), preferred: [item.id.replica] + (item.origin.map { [$0.replica] } ?? []), answer: answer)
        return true
    }

    /// An original a reader asked for arrived (`demandBytes`): under `--keep thumbnails` it is a
    /// cache entry, evicted when the budget needs its room and another node holds it.
    func originalFetchedOnDemand(_ hash: String, size: Int) {
        policies.cache?.admit(hash, size: size)
    }

    /// A reader read the original `hash` (a page's `GET /blobs/HASH`): the most recently used.
    package func originalRead(_ hash: String) {
        policies.cache?.touch(hash)
    }

    /// What this node holds of its pictures, and those it cannot show or fetch. Reads the replica,
    /// the disk, and asks the connected peers which originals they hold (at most
    /// `AvailabilityBook.answerTimeout`): not on the loop.
    package func storageStatus() -> StorageStatus? {
        guard let blobs = configuration.blobs else { return nil }
        let items = read { replica in
            replica.galleries.flatMap { (try? replica.items(in: $0)) ?? [] }
                .compactMap { item in item.contentHash.map { (id: item.id.description, adder: item.id.replica.description, hash: $0, size: Int(item.byteSize ?? 0)) } }
        }
        var sizes: [String: Int] = [:]
        for item in items { sizes[item.hash] = max(0, item.size) }
        let held = Set(sizes.keys.filter { blobs.contains($0) })
        let heldBytes = held.reduce(0) { $0 + sizes[$1, default: 0] }
        let cached = held.filter { policies.cache?.isCached($0) == true }.reduce(0) { $0 + sizes[$1, default: 0] }
        let usage = policies.cache?.usage
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
        let holders = policies.availability.holders(of: unheld)
        var unavailable: [StorageStatus.ItemProblem] = []
        var unavailableCount = 0
        for item in items where !held.contains(item.hash) && holders[item.hash]?.isEmpty != false {
            unavailableCount += 1
            if unavailable.count < StorageStatus.listLimit {
                unavailable.append(.init(item: item.id, hash: item.hash, reason: unavailableReason(adder: item.adder)))
            }
        }
        return StorageStatus(
            keep: policies.keep.rawValue, heldBytes: heldBytes, keptBytes: heldBytes - cached, cachedBytes: cached,
            cacheBudget: policies.cache?.budget, evicted: usage?.evicted ?? 0,
            keptOverBudget: usage?.lastCopies ?? 0, thumbnailBytes: thumbnails?.derived.storedBytes() ?? 0,
            thumbnailsMissing: missing, noThumbnail: noThumbnail, noThumbnailCount: noThumbnailCount,
            unavailable: unavailable, unavailableCount: unavailableCount)
    }

    /// Why no reachable node holds an item's original: its adder offline, by name when known.
    private func unavailableReason(adder replica: String) -> String {
        if let known = knownPeers.first(where: { $0.replica == replica }), known.connectedSince == nil, let name = known.name {
            return "on \(name), offline"
        }
        return "no connected peer holds the original"
    }
}
