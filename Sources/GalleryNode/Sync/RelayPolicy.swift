import GalleryModel

/// How one peer gets this node's ops (protocol.md, "Relay"): what the node knows the peer holds,
/// and, per origin replica, whether ops are pushed to it (an eager link of that origin's tree) or
/// only announced (`ihave`, a lazy link). Kept on the peer's session; decisions only, no I/O.
///
/// Per-origin trees (Plumtree with one tree per origin replica): every link starts eager for every
/// origin; a peer that receives an origin's op a second time on a live link answers `prune`, and
/// the link turns lazy for that origin; the first-arrival links stay, so each origin's eager links
/// converge to its fastest spanning tree (in a full mesh: the origin's own links, one copy per
/// receiver). A peer that holds announced ops it lacks for `graftTimeout` sends `graft`, which
/// makes the link eager again for what it lacks and is answered like a `sync_request`.
struct RelayPolicy: Equatable {
    /// What to do with one op for this peer.
    enum Route: Equatable {
        /// Send it in an `ops` frame now.
        case push
        /// Name it in the next `ihave`.
        case announce
        /// The peer has it, or is sent it already.
        case skip
    }

    /// Whether ops follow per-origin trees; false floods every op to the peer.
    var trees = true
    /// What the peer holds or is being sent, as far as this node knows: its `sync_request`,
    /// `caught_up`, `ihave` and `graft` vectors, the ops it sent here and the ops sent to it.
    private(set) var known = VersionVector()
    /// Origins whose ops the peer asked not to be pushed (`prune`): announced instead.
    private(set) var lazyOrigins: Set<ReplicaID> = []
    /// Origins this node told the peer to stop pushing, so as not to say it twice.
    private(set) var prunedOrigins: Set<ReplicaID> = []
    /// What the next `ihave` announces: per origin, the highest counter durable here.
    private(set) var announcement: [ReplicaID: UInt64] = [:]
    /// When (uptime, nanoseconds) the link was last given its queued `ihave` and `prune`s.
    var lastAnnounced: UInt64 = 0
    /// Origins to `prune` on this link with its next announcement (see `duplicatesArrived`).
    private(set) var pendingPrunes: Set<ReplicaID> = []
    /// Catch-ups asked of the peer (`sync_request`, `graft`) not yet answered by `caught_up`:
    /// duplicates meanwhile are expected, not a sign of a second eager path.
    private(set) var awaitedCatchUps = 0
    /// This node's first `sync_request` on the link waits (since this uptime, nanoseconds) for the
    /// catch-up another peer is sending: a new node is caught up by one peer, not by all at once.
    var deferredRequestSince: UInt64?
    /// The peer is sending this node the catch-up of its first `sync_request` (until `caught_up`).
    var firstCatchUpPending = false
    /// Ops the peer holds that this node lacked at `lackingSince` (uptime, nanoseconds): a graft
    /// is due when they are still missing `graftTimeout` later. Ops that keep arriving a little
    /// after the peer announced them (a busy stream) restart the watch, they do not trigger it.
    private(set) var lackingTarget: VersionVector?
    private(set) var lackingSince: UInt64 = 0
    /// The peer's replica ID: its own ops arrive on this link first in a full mesh (see
    /// `receivedDuplicates`).
    var peer: ReplicaID?

    /// Where one op goes.
    func route(_ id: OpID) -> Route {
        guard trees else { return .push }
        if known.contains(id) { return .skip }
        return lazyOrigins.contains(id.replica) ? .announce : .push
    }

    /// The peer holds, or is being sent, the op with this ID (and its replica's earlier ones).
    mutating func holds(_ id: OpID) {
        if known[id.replica] < id.counter { known[id.replica] = id.counter }
    }

    /// The peer holds what `version` includes.
    mutating func learned(_ version: VersionVector) {
        for (replica, counter) in version.counters where known[replica] < counter { known[replica] = counter }
    }

    /// Queues an op for the next `ihave`.
    mutating func announce(_ id: OpID) {
        if announcement[id.replica, default: 0] < id.counter { announcement[id.replica] = id.counter }
    }

    /// The `ihave` to send now: the queued announcements the peer does not hold; nil when none.
    mutating func takeAnnouncement() -> VersionVector? {
        let due = announcement.filter { known[$0.key] < $0.value }
        announcement.removeAll(keepingCapacity: true)
        return due.isEmpty ? nil : VersionVector(due)
    }

    /// Ops of these origins arrived from the peer though this node held them: the origins to
    /// `prune` now (none while a catch-up is awaited, or when they were pruned already).
    /// The peer's own ops are never pruned on its direct link: that link is the shortest path
    /// (one hop), and keeping it eager makes a full mesh settle on one star per origin without the
    /// prune races of shared trees; a relayed copy that came first is pruned on its next duplicate.
    mutating func receivedDuplicates(of origins: Set<ReplicaID>) -> [ReplicaID] {
        guard trees, awaitedCatchUps == 0 else { return [] }
        var fresh = origins.subtracting(prunedOrigins)
        if let peer { fresh.remove(peer) }
        prunedOrigins.formUnion(fresh)
        return fresh.sorted()
    }

    /// Ops of these origins arrived from the peer though this node held them (`several`: more
    /// than one op of the origin in this frame): the origins to `prune` at once. An origin's
    /// first duplicate only queues its `prune` for the link's next announcement (on a quiet link,
    /// one record for both); a second before then, or several in one frame (a busy link, where
    /// waiting brings more: a frame carries what its sender relayed in 10 ms), send it at once.
    mutating func duplicatesArrived(_ origins: Set<ReplicaID>, several: Set<ReplicaID> = []) -> [ReplicaID] {
        let again = origins.intersection(pendingPrunes)
        pendingPrunes.subtract(again)
        let fresh = Set(receivedDuplicates(of: origins))
        let now = fresh.intersection(several)
        pendingPrunes.formUnion(fresh.subtracting(now))
        return again.union(now).sorted()
    }

    /// The origins to `prune` now (those queued since the last pass, less any grafted meanwhile);
    /// empty when none.
    mutating func takePrunes() -> [ReplicaID] {
        defer { pendingPrunes.removeAll(keepingCapacity: true) }
        return pendingPrunes.intersection(prunedOrigins).sorted()
    }

    /// The peer sent `prune`: its ops of these origins are announced from now on.
    mutating func pruned(_ origins: [ReplicaID]) {
        lazyOrigins.formUnion(origins)
    }

    /// The peer sent `graft` with its version vector: the origins of which this node holds more
    /// than it (`holding`) are pushed again. (The catch-up that answers it is the caller's.)
    mutating func grafted(_ version: VersionVector, origins: [ReplicaID]) {
        learned(version)
        lazyOrigins.subtract(origins)
    }

    /// This node asked the peer for a catch-up (`sync_request`).
    mutating func askedCatchUp() {
        awaitedCatchUps += 1
    }

    /// This node sends the peer `graft` for these origins: it wants them pushed again, and may
    /// prune them again later.
    mutating func grafting(_ origins: Set<ReplicaID>) {
        prunedOrigins.subtract(origins)
        awaitedCatchUps += 1
        lackingTarget = nil
    }

    /// The peer sent `caught_up`: it has sent everything up to `version`.
    mutating func caughtUp(_ version: VersionVector) {
        awaitedCatchUps = max(0, awaitedCatchUps - 1)
        firstCatchUpPending = false
        learned(version)
    }

    /// The origins of which the peer holds ops that a replica at `version` lacks.
    func lacking(from version: VersionVector) -> Set<ReplicaID> {
        Set(known.counters.compactMap { version[$0.key] < $0.value ? $0.key : nil })
    }

    /// The liveness pass's look at this link, with this node at `version`: the origins to graft
    /// (and since when they were missing) when ops the peer held `timeout` ago are still missing
    /// here; nil otherwise. While a catch-up from the peer is awaited nothing is due (it brings them).
    mutating func dueGraft(version: VersionVector, now: UInt64, timeout: UInt64) -> (since: UInt64, origins: Set<ReplicaID>)? {
        guard awaitedCatchUps == 0 else {
            lackingTarget = nil
            return nil
        }
        if let target = lackingTarget, !version.includes(target) {
            guard now >= lackingSince, now - lackingSince >= timeout else { return nil }
            return (lackingSince, Set(target.counters.compactMap { version[$0.key] < $0.value ? $0.key : nil }))
        }
        let missing = known.counters.filter { version[$0.key] < $0.value }
        lackingTarget = missing.isEmpty ? nil : VersionVector(missing)
        lackingSince = now
        return nil
    }
}
