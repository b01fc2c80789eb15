import GalleryModel

/// How one peer gets this node's ops (protocol.md, "Relay"): what the node knows the peer holds,
/// whether the link was grafted, and what was announced on it. Kept on the peer's session;
/// decisions only, no I/O. Whether the link is a branch of the relay tree is the node's
/// `RelayTree`'s to say: a branch, or a grafted link, is eager (ops are pushed); any other link is
/// lazy (the total this node holds is announced, `ihave_total`).
struct RelayPolicy: Equatable {
    /// What to do with one op for this peer.
    enum Route: Equatable {
        /// Send it in an `ops` frame now.
        case push
        /// Leave it to the link's next `ihave_total`.
        case announce
        /// The peer has it, or is sent it already.
        case skip
    }

    /// Whether ops follow the tree; false floods every op to the peer.
    var trees = true
    /// What the peer holds or is being sent, as far as this node knows: its `sync_request`,
    /// `caught_up`, `ihave` and `graft` vectors, the ops it sent here and the ops sent to it.
    private(set) var known = VersionVector()
    /// The link was grafted (by either end) and not pruned since: eager though not a branch.
    private(set) var isGrafted = false
    /// The highest total the peer announced (`ihave_total`: the sum of its version vector).
    private(set) var peerTotal: UInt64 = 0
    /// The total this node last announced on the link, so as not to say it twice.
    private(set) var announcedTotal: UInt64 = 0
    /// When (uptime, nanoseconds) the link was last given an announcement.
    var lastAnnounced: UInt64 = 0
    /// Ops were left to an announcement on the link since its last one: it is owed even if the
    /// link turned into a branch meanwhile (the peer became a child), which pushes only later ops.
    var owesAnnouncement = false
    /// Catch-ups asked of the peer (`sync_request`, `graft`) since its last `caught_up`: duplicates
    /// meanwhile are expected, not a sign of a second eager path. A `caught_up` ends them all (a
    /// request that arrives while another is answered replaces it: one `caught_up` for both).
    private(set) var awaitedCatchUps = 0
    /// This node's first `sync_request` on the link waits (since this uptime, nanoseconds) for the
    /// catch-up another peer is sending: a new node is caught up by one peer, not by all at once.
    var deferredRequestSince: UInt64?
    /// The peer is sending this node the catch-up of its first `sync_request` (until `caught_up`).
    var firstCatchUpPending = false
    /// When (uptime, nanoseconds) the first catch-up last showed progress: its request, then
    /// each `ops` frame of it.
    var firstCatchUpProgress: UInt64 = 0
    /// How long a first catch-up may bring nothing before the node stops waiting on it: a peer
    /// that withholds its answer (a hostile member, a hung process) must not hold back the
    /// other peers' requests, nor the grafts, of a joining node (protocol.md, "Relay").
    static let catchUpStall: UInt64 = 1_500_000_000
    /// What the peer held (per origin, and as a total) that this node lacked at `lackingSince`
    /// (uptime, nanoseconds): a graft is due when it is still missing `graftTimeout` later. Ops
    /// that keep arriving a little after the peer announced them (a busy stream) end the watch,
    /// they do not trigger it.
    private(set) var lacking: Lacking?
    private(set) var lackingSince: UInt64 = 0

    /// What a peer held that this node lacked: the origins' counters, and a total (0 when only
    /// the origins tell).
    struct Lacking: Equatable {
        var version: VersionVector
        var total: UInt64
    }

    /// Whether the node waits on the peer's first catch-up at `now`: asked, not answered, and
    /// not stalled for `catchUpStall`.
    func awaitsFirstCatchUp(now: UInt64) -> Bool {
        firstCatchUpPending && now &- firstCatchUpProgress < Self.catchUpStall
    }

    /// Where one op goes on a link that is a branch of the tree (`branch`) or not.
    func route(_ id: OpID, branch: Bool) -> Route {
        guard trees else { return .push }
        if known.contains(id) { return .skip }
        return branch || isGrafted ? .push : .announce
    }

    /// The peer holds, or is being sent, the op with this ID (and its replica's earlier ones).
    mutating func holds(_ id: OpID) {
        if known[id.replica] < id.counter { known[id.replica] = id.counter }
    }

    /// The peer holds what `version` includes.
    mutating func learned(_ version: VersionVector) {
        for (replica, counter) in version.counters where known[replica] < counter { known[replica] = counter }
    }

    /// The peer announced the total of its version vector.
    mutating func announced(total: UInt64) {
        peerTotal = max(peerTotal, total)
    }

    /// The total to announce now, holding `total`: on a lazy link (not a branch: `branch` false,
    /// nor grafted) when it changed since the link's last announcement, and on any link that is
    /// owed one (`owesAnnouncement`); nil otherwise. Recorded as said.
    mutating func takeAnnouncement(total: UInt64, branch: Bool) -> UInt64? {
        guard trees, total != announcedTotal, owesAnnouncement || (!branch && !isGrafted) else { return nil }
        announcedTotal = total
        owesAnnouncement = false
        return total
    }

    /// When the link's relay decisions may next change with time alone, holding `total`, after
    /// the pass's `takeAnnouncement` and `dueGraft`: the end of the announcement interval
    /// while an announcement waits for it, the graft's timeout while something is lacking;
    /// `.max` when only a new event (ops, a frame from the peer) can change them.
    func nextDecision(total: UInt64, branch: Bool, announcing: UInt64, graftTimeout: UInt64) -> UInt64 {
        guard trees else { return .max }
        var next = UInt64.max
        if total != announcedTotal && (owesAnnouncement || (!branch && !isGrafted)) {
            next = lastAnnounced &+ announcing
        }
        if awaitedCatchUps == 0, lacking != nil { next = min(next, lackingSince &+ graftTimeout) }
        return next
    }

    /// Ops arrived from the peer though this node held them: true when the link is to be pruned
    /// (a grafted link that is not a branch, no catch-up awaited, whose answer may repeat what is
    /// held): it is lazy again on this side at once; the caller sends `prune`. A branch is never
    /// pruned: its duplicates come from a tree changing parents, and stop with it.
    mutating func receivedDuplicates(branch: Bool) -> Bool {
        guard trees, isGrafted, !branch, awaitedCatchUps == 0 else { return false }
        isGrafted = false
        return true
    }

    /// The peer sent `prune`: the graft is over; ops are announced to it unless it is a branch.
    mutating func pruned() {
        isGrafted = false
    }

    /// The peer sent `graft` with its version vector: the link is eager. (The catch-up that
    /// answers it is the caller's.)
    mutating func grafted(_ version: VersionVector) {
        learned(version)
        isGrafted = true
    }

    /// This node asked the peer for a catch-up (`sync_request`).
    mutating func askedCatchUp() {
        awaitedCatchUps += 1
    }

    /// This node sends the peer `graft`: the link is eager, until a duplicate prunes it.
    mutating func grafting() {
        isGrafted = true
        awaitedCatchUps += 1
        lacking = nil
    }

    /// The peer sent `caught_up`: it has sent everything up to `version`, and answered every
    /// request of this node so far.
    mutating func caughtUp(_ version: VersionVector) {
        awaitedCatchUps = 0
        firstCatchUpPending = false
        learned(version)
    }

    /// The liveness pass's look at this link, with this node at `version` (`total`, its sum): when
    /// what the peer held `timeout` ago (by its vectors, or its announced total) is still missing
    /// here, since when, and the origins known to be missing (none when only the total tells);
    /// nil otherwise. While a catch-up from the peer is awaited nothing is due (it brings them).
    mutating func dueGraft(version: VersionVector, total: UInt64, now: UInt64, timeout: UInt64) -> (since: UInt64, origins: [ReplicaID])? {
        guard awaitedCatchUps == 0 else {
            lacking = nil
            return nil
        }
        if let target = lacking, total < target.total || !version.includes(target.version) {
            guard now >= lackingSince, now - lackingSince >= timeout else { return nil }
            let origins = target.version.counters.compactMap { version[$0.key] < $0.value ? $0.key : nil }
            return (lackingSince, origins.sorted())
        }
        let missing = known.counters.filter { version[$0.key] < $0.value }
        lacking = missing.isEmpty && peerTotal <= total
            ? nil : Lacking(version: VersionVector(missing), total: peerTotal > total ? peerTotal : 0)
        if lacking != nil { lackingSince = now }
        return nil
    }
}
