/// What a node keeps of its pictures and how it learns who holds them: the keep policy, the
/// availability questions to peers, the cache of originals fetched on demand (`--keep thumbnails`)
/// and the eager fetcher of every original (`--keep all`).
package final class NodePolicies: Sendable {
    package let keep: KeepPolicy
    package let availability = AvailabilityBook()
    /// Nil under `--keep all`, or without a blob store.
    package let cache: OriginalCache?
    /// Nil under `--keep thumbnails`, or without a blob store.
    package let eager: EagerOriginals?

    init(configuration: NodeConfiguration) {
        keep = configuration.keep
        let stores = configuration.blobs != nil
        cache = stores && keep == .thumbnails ? OriginalCache(budget: configuration.cacheBudget, records: configuration.cacheRecords) : nil
        eager = stores && keep == .all ? EagerOriginals() : nil
    }

    /// Tells each part its node; once, from the node's `init`.
    func attach(_ node: SyncNode) {
        availability.node = node
        availability.serving = node.workers.makeLane("holds")
        cache?.node = node
        eager?.node = node
    }
}
