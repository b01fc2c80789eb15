import Foundation
import Synchronization

/// The originals this node fetched on demand (a page's viewer, `export`, a thumbnail made from
/// a peer's original) under `--keep thumbnails`: a cache of at most `budget` bytes, evicted least
/// recently used first, never evicting a blob that no connected peer says it holds
/// (`AvailabilityBook`): the last reachable copy stays, over budget if it must.
///
/// Originals added, uploaded or dragged here, and all of them under `--keep all`, are kept: they
/// are never in the cache; eviction runs on `work`, one pass at a time.
package final class OriginalCache: Sendable {
    /// The cached originals and the counts kept about them.
    private struct Entries {
        var byHash: [String: CachedOriginal] = [:]
        var total = 0
        var evicting = false
        var evictedCount = 0
        /// Originals over budget that no reachable node holds, at the last pass.
        var lastCopies = 0
    }

    /// The most originals asked about at once in one eviction pass.
    static let candidatesPerPass = 256

    /// The bytes of cached originals this node keeps at most; nil: no limit.
    package let budget: Int?
    let records: (any OriginalCacheRecords)?
    /// The node, set by `NodePolicies.attach`.
    var node: SyncNode? {
        get { nodeSlot.object }
        set { nodeSlot.object = newValue }
    }
    private let nodeSlot = WeakSlot<SyncNode>()
    private let entries: Mutex<Entries>
    private let work = DispatchQueue(label: "original-cache", qos: .utility)

    init(budget: Int?, records: (any OriginalCacheRecords)?) {
        self.budget = budget
        self.records = records
        var loaded = Entries()
        for entry in records?.loadCache() ?? [] where loaded.byHash[entry.hash] == nil && entry.size >= 0 {
            loaded.byHash[entry.hash] = entry
            loaded.total += entry.size
        }
        entries = Mutex(loaded)
    }

    /// The bytes of cached originals, their count, those evicted since start, and those kept over
    /// budget because no reachable node holds them.
    package var usage: (bytes: Int, count: Int, evicted: Int, lastCopies: Int) {
        entries.withLock { ($0.total, $0.byHash.count, $0.evictedCount, $0.lastCopies) }
    }

    /// Whether `hash` is a cached original (not a kept one).
    package func isCached(_ hash: String) -> Bool {
        entries.withLock { $0.byHash[hash] != nil }
    }

    /// Records an original just fetched on demand, then evicts if over budget.
    func admit(_ hash: String, size: Int) {
        entries.withLock { entries in
            if entries.byHash[hash] == nil { entries.total += size }
            entries.byHash[hash] = CachedOriginal(hash: hash, size: size, lastUsed: Date().timeIntervalSince1970)
        }
        save()
        evictIfOverBudget()
    }

    /// An original was read: it is the most recently used.
    func touch(_ hash: String) {
        entries.withLock { $0.byHash[hash]?.lastUsed = Date().timeIntervalSince1970 }
    }

    /// The original is kept from now on (an item here was made of it): out of the cache.
    func keep(_ hash: String) {
        let removed = entries.withLock { entries -> Bool in
            guard let entry = entries.byHash.removeValue(forKey: hash) else { return false }
            entries.total -= entry.size
            return true
        }
        if removed { save() }
    }

    /// Starts an eviction pass unless one runs or the cache is within budget.
    func evictIfOverBudget() {
        let start = entries.withLock { entries -> Bool in
            guard let budget, entries.total > budget, !entries.evicting else { return false }
            entries.evicting = true
            return true
        }
        if start { work.async { self.evict() } }
    }

    /// Evicts least recently used originals until within budget, each only once a connected peer
    /// said it holds it. On `work`.
    private func evict() {
        defer { entries.withLock { $0.evicting = false } }
        guard let budget, let node, let blobs = node.configuration.blobs else { return }
        let candidates = entries.withLock { $0.byHash.values.sorted { $0.lastUsed < $1.lastUsed }.prefix(Self.candidatesPerPass) }
        let holders = node.policies.availability.holders(of: candidates.map(\.hash))
        var kept = 0
        for candidate in candidates {
            let over = entries.withLock { $0.total > budget }
            guard over else { break }
            guard let names = holders[candidate.hash], !names.isEmpty else {
                kept += 1
                continue
            }
            do {
                try blobs.remove(candidate.hash)
            } catch {
                node.configuration.log("cannot evict \(candidate.hash.prefix(12)) from the cache: \(error.localizedDescription)")
                continue
            }
            entries.withLock { entries in
                if let entry = entries.byHash.removeValue(forKey: candidate.hash) { entries.total -= entry.size }
                entries.evictedCount += 1
            }
        }
        entries.withLock { $0.lastCopies = kept }
        save()
    }

    /// Writes the record (best effort: a lost record keeps the blobs, it loses none).
    func save() {
        guard let records else { return }
        let snapshot = entries.withLock { Array($0.byHash.values) }
        do {
            try records.saveCache(snapshot)
        } catch {
            node?.configuration.log("cannot record the cache of originals: \(error.localizedDescription)")
        }
    }
}
