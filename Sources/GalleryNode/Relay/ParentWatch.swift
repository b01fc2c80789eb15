import GalleryModel

/// What a child of the relay tree's root has received since the root last sent it ops
/// (protocol.md, "Relay", "A root that withholds"): the evidence on which it deposes the root.
///
/// An honest root pushes every op of its other subtrees to each child, so a child hears from it
/// whenever some other subtree makes ops. A root that withholds sends nothing, and its children
/// get the other subtrees' ops from below (a border node grafts across and pushes them up), so
/// a child that, for `silence`, has had no op from its root but `evidence` new ops of at least
/// `origins` origins from its other links knows the root withholds. Decisions only; on the loop.
struct ParentWatch: Equatable {
    /// How long the parent has sent nothing at least.
    static let silence: UInt64 = 1_500_000_000
    /// How many new ops came meanwhile from other links at least: a run this long of ops that
    /// all come from the child's own subtree, none from the rest of the mesh, is unlikely while
    /// the root passes ops on (2^-16 for a subtree that makes half the ops, 3^-16 for a third).
    static let evidence = 16
    /// How many origins those ops were made by at least: one or two editors below the child
    /// (a small mesh, a lone editor) are not the rest of the mesh.
    static let origins = 3

    /// The session watched (the parent), or nil.
    private(set) var parent: Int?
    /// When (uptime, nanoseconds) the parent last sent ops, or became the parent.
    private(set) var heardAt: UInt64 = 0
    /// New ops received from other links since.
    private(set) var elsewhere = 0
    /// Their origins (up to `origins`).
    private(set) var elsewhereOrigins: Set<ReplicaID> = []

    /// Starts watching `parent` (nil: nothing) from `now`, forgetting what came before.
    mutating func watch(_ parent: Int?, now: UInt64) {
        self.parent = parent
        heardAt = now
        elsewhere = 0
        elsewhereOrigins = []
    }

    /// Ops arrived on `session` (`new` of them not held before, made by `origins`) at `now`, with
    /// the tree's parent `parent`. Returns true when the parent is found withholding: silent for
    /// `silence` while `evidence` new ops of `origins` origins came another way.
    mutating func received(on session: Int, new: Int, origins: some Sequence<ReplicaID>, parent current: Int?, now: UInt64) -> Bool {
        if current != parent { watch(current, now: now) }
        guard let parent else { return false }
        if session == parent {
            watch(parent, now: now)
            return false
        }
        guard new > 0 else { return false }
        elsewhere += new
        for origin in origins where elsewhereOrigins.count < Self.origins { elsewhereOrigins.insert(origin) }
        return elsewhere >= Self.evidence && elsewhereOrigins.count >= Self.origins && now &- heardAt >= Self.silence
    }
}
