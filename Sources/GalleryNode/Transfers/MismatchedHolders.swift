import GalleryModel

/// The peers whose bytes did not hash to the blob asked for, remembered per hash beyond the
/// download that caught them: a later fetch of the same blob (a reader asking again once the first
/// was told `hashMismatch`, a drag after a read, a relay) passes them over instead of asking the
/// same bad holder again, the node that added the item first among them.
///
/// Bounded: at most `capacity` hashes (the one noted longest ago is forgotten first) of at most
/// `replicasPerHash` peers each; an entry is forgotten `lifetime` after it was last noted, so that
/// a holder that repaired its store is asked again some day. Guarded by the manager's lock.
struct MismatchedHolders {
    /// The most hashes remembered.
    static let capacity = 1_024
    /// The most peers remembered per hash.
    static let replicasPerHash = 16
    /// How long an entry is remembered after it was last noted (nanoseconds of uptime): an hour.
    static let lifetime: UInt64 = 3_600 * 1_000_000_000

    /// What is remembered of one hash.
    struct Entry {
        var replicas: Set<ReplicaID>
        /// Why their bytes were discarded, as a failed transfer reports it.
        var reason: String
        var notedAt: UInt64
    }

    private var entries: [String: Entry] = [:]
    /// The hashes, the one noted longest ago first.
    private var order: [String] = []

    /// The hashes remembered.
    var count: Int { entries.count }
    var isEmpty: Bool { entries.isEmpty }

    /// Remembers that `replicas` sent bytes of another hash for `hash`, now.
    mutating func note(_ replicas: Set<ReplicaID>, for hash: String, reason: String, now: UInt64) {
        guard !replicas.isEmpty else { return }
        var entry = entries[hash] ?? Entry(replicas: [], reason: reason, notedAt: now)
        for replica in replicas.sorted() where entry.replicas.count < Self.replicasPerHash {
            entry.replicas.insert(replica)
        }
        entry.reason = reason
        entry.notedAt = now
        if entries[hash] != nil { order.removeAll { $0 == hash } }
        entries[hash] = entry
        order.append(hash)
        while order.count > Self.capacity { entries[order.removeFirst()] = nil }
    }

    /// The peers not to ask for `hash`, and why, unless none is remembered (or their entry aged out,
    /// which forgets it).
    mutating func suspects(of hash: String, now: UInt64) -> Entry? {
        guard let entry = entries[hash] else { return nil }
        guard now < entry.notedAt || now - entry.notedAt < Self.lifetime else {
            entries[hash] = nil
            order.removeAll { $0 == hash }
            return nil
        }
        return entry
    }
}
