import GalleryModel

/// What a node has received from its relay parent and from its other links since it began
/// watching (protocol.md, "Relay", "A parent that withholds"): the evidence on which it leaves
/// the parent, or deposes it when it is the root.
///
/// An honest parent pushes every op made outside the node's subtree, and it does so first: ops
/// come another way first only from the node's own subtree, or through a graft after the lazy
/// links' announcements showed them missing for the graft's timeout. A parent that withholds
/// sends nothing, or a trickle, and the node gets the rest of the mesh's ops from below (a border
/// node grafts across and pushes them up) or through its own grafts. So a node that, over at
/// least `silence`, got `evidence` new ops or more of at least `origins` origins another way
/// while its parent was first for fewer than one in `share + 1` of the new ops knows the parent
/// withholds. A parent whose share is at least that when it delivers restarts the watch.
/// Decisions only; on the loop.
struct ParentWatch: Equatable {
    /// How long the watch lasts at least before it judges.
    static let silence: UInt64 = 1_500_000_000
    /// How many new ops came meanwhile from other links at least: a run this long of ops that
    /// all come from the child's own subtree, none from the rest of the mesh, is unlikely while
    /// the parent passes ops on (2^-16 for a subtree that makes half the ops, 3^-16 for a third).
    static let evidence = 16
    /// How many origins those ops were made by at least: one or two editors below the child
    /// (a small mesh, a lone editor) are not the rest of the mesh.
    static let origins = 3
    /// The parent is found lagging while the ops it delivered first, times this, are fewer than
    /// those that came first another way: first for fewer than 1 in 9 of the new ops. An honest
    /// parent is first for the share of the ops made outside the node's subtree.
    static let share = 8
    /// How much longer the watch lasts per link further from the root: a withholding parent
    /// starves its whole subtree, and every node of a chain that feeds it from below (a border
    /// node's grafts) sees its own parent pass nothing; the node closest to the withholder
    /// judges first, and its subtree is fed again before the nodes below it judge theirs.
    static let stagger: UInt64 = 500_000_000

    /// How long the watch lasts at least for a node `hops` links from the root: `silence`, and
    /// `stagger` more per link beyond the first.
    static func patience(hops: UInt64) -> UInt64 {
        silence &+ stagger &* (max(hops, 1) &- 1)
    }

    /// The session watched (the parent), or nil.
    private(set) var parent: Int?
    /// When (uptime, nanoseconds) the watch began: the parent became the parent, or last
    /// delivered its share.
    private(set) var heardAt: UInt64 = 0
    /// New ops the parent delivered first since.
    private(set) var fromParent = 0
    /// New ops received from other links since.
    private(set) var elsewhere = 0
    /// Their origins (up to `origins`).
    private(set) var elsewhereOrigins: Set<ReplicaID> = []
    /// Whether the parent's share is counted (the rule above); false restarts the watch at any
    /// ops frame from the parent, so that only a parent silent for `silence` is found (the rule
    /// before trickles were caught, `NodeConfiguration.leavesLaggingParent` off).
    var countsShare = true

    /// Starts watching `parent` (nil: nothing) from `now`, forgetting what came before.
    mutating func watch(_ parent: Int?, now: UInt64) {
        self.parent = parent
        heardAt = now
        fromParent = 0
        elsewhere = 0
        elsewhereOrigins = []
    }

    /// Ops arrived on `session` (`new` of them not held before, made by `origins`) at `now`, with
    /// the tree's parent `parent`. Returns true when the parent is found withholding: over at
    /// least `patience` (`silence`, more further from the root), `evidence` new ops of `origins` origins came another way while the
    /// parent was first for fewer than one in `share + 1`.
    mutating func received(on session: Int, new: Int, origins: some Sequence<ReplicaID>, parent current: Int?, now: UInt64,
                           patience: UInt64 = Self.silence) -> Bool {
        if current != parent { watch(current, now: now) }
        guard let parent else { return false }
        if session == parent {
            guard countsShare else {
                watch(parent, now: now)
                return false
            }
            fromParent += max(new, 0)
            if new > 0, fromParent * Self.share >= elsewhere { watch(parent, now: now) }
            return false
        }
        guard new > 0 else { return false }
        elsewhere += new
        for origin in origins where elsewhereOrigins.count < Self.origins { elsewhereOrigins.insert(origin) }
        return elsewhere >= Self.evidence && elsewhereOrigins.count >= Self.origins && now &- heardAt >= patience
            && fromParent * Self.share < elsewhere
    }
}
