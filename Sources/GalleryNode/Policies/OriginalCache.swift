import Foundation

/// The originals this node fetched on demand (a page's viewer, `export`, a thumbnail made from
/// a peer's original) under `--keep thumbnails`: a cache of at most `budget` bytes, evicted least
/// recently used first, never evicting a blob that no connected peer says it holds
/// (`AvailabilityBook`): the last reachable copy stays, over budget if it must.
///
/// Originals added, uploaded or dragged here, and all of them under `--keep all`, are kept: they
/// are never in the cache.
///
/// `@unchecked Sendable`: the entries are guarded by `lock`; eviction runs on `work`, one pass at a time.
package final class OriginalCache: @unchecked Sendable {
    /// The most originals asked about at once in one eviction pass.
    static let candidatesPerPass = 256

    /// The bytes of cached originals this node keeps at most; nil: no limit.
    package let budget: Int?
    let records: (any OriginalCacheRecords)?
    weak var node: SyncNode?
    private let lock = NSLock()
    private var entries: [String: CachedOriginal] = [:]
    private var total = 0
    private var evicting = false
    private var evictedCount = 0
    /// Originals over budget that no reachable node holds, at the last pass.
    private var lastCopies = 0
    private let work = DispatchQueue(label: "original-cache", qos: .utility)

    init(budget: Int?, records: (any OriginalCacheRecords)?) {
        self.budget = budget
        self.records = records
        for entry in records?.loadCache() ?? [] where entries[entry.hash] == nil && entry.size >= 0 {
            entries[entry.hash] = entry
            total += entry.size
        }
    }

    /// The bytes of cached originals, their count, those evicted since start, and those kept over
    /// budget because no reachable node holds them.
    package var usage: (bytes: Int, count: Int, evicted: Int, lastCopies: Int) {
        lock.withLock { (total, entries.count, evictedCount, lastCopies) }
    }

    /// Whether `hash` is a cached original (not a kept one).
    package func isCached(_ hash: String) -> Bool {
        lock.withLock { entries[hash] != nil }
    }

    /// Records an original just fetched on demand, then evicts if over budget.
    func admit(_ hash: String, size: Int) {
        lock.withLock {
            if entries[hash] == nil { total += size }
            entries[hash] = CachedOriginal(hash: hash, size: size, lastUsed: Date().timeIntervalSince1970)
        }
        save()
        evictIfOverBudget()
    }

    /// An original was read: it is the most recently used.
    func touch(_ hash: String) {
        lock.withLock { entries[hash]?.lastUsed = Date().timeIntervalSince1970 }
    }

    /// The original is kept from now on (an item here was made of it): out of the cache.
    func keep(_ hash: String) {
        let removed = lock.withLock { () -> Bool in
            guard let entry = entries.removeValue(forKey: hash) else { return false }
            total -= entry.size
            return true
        }
        if removed { save() }
    }

    /// Starts an eviction pass unless one runs or the cache is within budget.
    func evictIfOverBudget() {
        let start = lock.withLock { () -> Bool in
            guard let budget, total > budget, !evicting else { return false }
            evicting = true
            return true
        }
        if start { work.async { self.evict() } }
    }

    /// Evicts least recently used originals until within budget, each only once a connected peer
    /// said it holds it. On `work`.
    private func evict() {
        defer { lock.withLock { evicting = false } }
        guard let budget, let node, let blobs = node.configuration.blobs else { return }
        let candidates = lock.withLock { entries.values.sorted { $0.lastUsed < $1.lastUsed }.prefix(Self.candidatesPerPass) }
        let holders = node.policies.availability.holders(of: candidates.map(\.hash))
        var kept = 0
        for candidate in candidates {
            let over = lock.withLock { total > budget }
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
            lock.withLock {
                if let entry = entries.removeValue(forKey: candidate.hash) { total -= entry.size }
                evictedCount += 1
            }
        }
        lock.withLock { lastCopies = kept }
        save()
    }

    /// Writes the record (best effort: a lost record keeps the blobs, it loses none).
    func save() {
        guard let records else { return }
        let snapshot = lock.withLock { Array(entries.values) }
        do {
            try records.saveCache(snapshot)
        } catch {
            node?.configuration.log("cannot record the cache of originals: \(error.localizedDescription)")
        }
    }
}
