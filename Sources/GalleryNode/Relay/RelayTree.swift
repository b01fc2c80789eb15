import GalleryModel
import GalleryWire

/// The mesh's relay tree as this node sees it (protocol.md, "Relay"): one spanning tree for
/// every origin, rooted at the smallest replica ID the mesh has heard of, along which ops are
/// pushed; other links only announce. Decisions only, no I/O; on the node's loop.
///
/// The root sends a beacon on each of its links every `beaconInterval`; a node adopts the first
/// copy of each new round (or of a smaller root) as coming from its parent, one link further
/// from the root, and sends its own beacon, naming that parent, on every link. So the parent
/// links form the tree of the fastest paths from the root, and each node knows its children: the
/// peers whose latest beacon names it. Nothing depends on which copy was a duplicate, so
/// concurrent ops cannot cut the tree (the race of trees built by `prune`s), and a link's state
/// is a bit, whatever the number of origins.
struct RelayTree {
    /// Beacons this far from the root or farther are not adopted (a loop of stale state).
    static let maximumHops: UInt64 = 255
    /// How many retired roots are remembered.
    static let retiredLimit = 16
    /// How long a link that stopped being a branch (this node took another parent, or a child
    /// another parent) stays one: ops that the new branch had passed before it heard of the change
    /// still come the old way, instead of by neither.
    static let linger: UInt64 = 500_000_000

    /// This node's replica ID.
    let me: ReplicaID
    /// The root this node follows: itself until it hears of a preferred one.
    private(set) var root: ReplicaID
    /// Since when the root has been a root (Unix milliseconds, its clock): the oldest root wins,
    /// so a node joining (or restarting) does not re-root the mesh.
    private(set) var since: UInt64
    /// The root's latest round this node has adopted (or sent, as the root); 0 before any.
    private(set) var round: UInt64 = 0
    /// Links from the root.
    private(set) var hops: UInt64 = 0
    /// The session of the link to the parent; nil at the root, or while orphaned.
    private(set) var parent: Int?
    /// When (uptime, nanoseconds) the current round was adopted or sent.
    private(set) var heardAt: UInt64
    /// Each session's latest beacon.
    private(set) var beacons: [Int: TreeBeacon] = [:]
    /// Each session's peer replica.
    private(set) var peers: [Int: ReplicaID] = [:]
    /// Roots given up for silence (root, since) with their last round: only a later round brings
    /// one back, not the stale state still echoing around a loop.
    private(set) var retired: [ReplicaID: (since: UInt64, round: UInt64)] = [:]
    /// Links that were branches, until when (uptime, nanoseconds) they still count as ones.
    private(set) var lingering: [Int: UInt64] = [:]
    /// Whether a child of a root that withholds ops deposes it, and the nodes that hear of a
    /// deposition follow (protocol.md, "Relay", "A root that withholds"); false keeps the root.
    var deposes = true
    /// Roots deposed, until when (uptime, nanoseconds): neither their beacons nor any other
    /// beacon they send are taken.
    private(set) var deposed: [ReplicaID: UInt64] = [:]
    /// How long a deposed root stays deposed.
    static let deposition: UInt64 = 600_000_000_000
    /// What this node has had from its parent and from elsewhere.
    private(set) var watch = ParentWatch()
    /// Whether a node whose parent below the root withholds ops leaves it, and a root's child
    /// also finds a root that passes a trickle (protocol.md, "Relay", "A parent that
    /// withholds"); false watches the root's children only, for silence.
    var leaves = true {
        didSet { watch.countsShare = leaves }
    }
    /// Parents left for withholding (replica IDs), until when (uptime, nanoseconds): their
    /// beacons are kept (they say who is a child) but never make them this node's parent.
    private(set) var avoided: [ReplicaID: UInt64] = [:]
    /// Parents left for withholding since the start (`leave`).
    private(set) var parentsLeft = 0
    /// This node has just taken a new round from another peer than the parent it was avoiding:
    /// the node asks its new parent for what it lacks (`takeLeftAvoided`).
    private(set) var leftAvoided = false

    /// Whether this node has taken another parent than the one it was avoiding since last asked.
    mutating func takeLeftAvoided() -> Bool {
        defer { leftAvoided = false }
        return leftAvoided
    }

    /// A node that roots its own tree, as of `wallMilliseconds`, until it hears of a preferred root.
    init(me: ReplicaID, now: UInt64, wallMilliseconds: UInt64) {
        self.me = me
        self.root = me
        self.since = wallMilliseconds
        self.heardAt = now
    }

    /// Whether this node is the root of the tree it follows.
    var isRoot: Bool { root == me }

    /// The beacon this node sends: where it stands now.
    var beacon: TreeBeacon {
        TreeBeacon(root: root, since: since, round: round, hops: hops, parent: parent.flatMap { peers[$0] })
    }

    /// Whether ops go over this link: it leads to the parent, or to a child (a peer whose latest
    /// beacon, under the same root, names this node as its parent), or to a peer that has sent no
    /// beacon (yet, or ever: a node that does not know `tree` frames gets every op, as before), or
    /// one that follows another root (the trees are merging: it may be about to become a child),
    /// or to a parent left for withholding (`avoided`): it may be honest and starved itself, fed
    /// only from below, and its subtree with it.
    func isBranch(_ session: Int, now: UInt64) -> Bool {
        if session == parent || lingering[session].map({ now < $0 }) == true || isAvoided(session, now: now) { return true }
        guard let beacon = beacons[session] else { return true }
        return names(beacon) || beacon.root != root || beacon.since != since
    }

    /// Whether the peer of `session` is a child: its latest beacon names this node.
    func isChild(_ session: Int) -> Bool {
        beacons[session].map(names) ?? false
    }

    /// Whether `beacon` is a child's: it names this node as its parent under this node's root.
    private func names(_ beacon: TreeBeacon) -> Bool {
        beacon.parent == me && beacon.root == root && beacon.since == since
    }

    /// When the first link still lingering after `now` stops being a branch, if any: the relay's
    /// decisions for it change then.
    func lingerEnd(after now: UInt64) -> UInt64? {
        lingering.values.filter { $0 > now }.min()
    }

    /// Keeps `session` a branch for `linger` from `now`, and forgets lingering that is over.
    private mutating func linger(_ session: Int?, now: UInt64) {
        lingering = lingering.filter { now < $0.value }
        if let session { lingering[session] = now + Self.linger }
    }

    /// A session with the peer `replica` was authenticated.
    mutating func connected(_ session: Int, peer: ReplicaID) {
        peers[session] = peer
    }

    /// What a beacon received asks of this node.
    enum Reaction: Equatable {
        /// Nothing.
        case none
        /// Its own beacon changed (a new round, a preferred root): send it on every link.
        case changed
        /// The peer follows a root this node's is preferred to: send it this node's beacon.
        case answer
        /// Its root was deposed and its beacon changed: send it on every link, and ask every
        /// peer for what this node lacks (the old tree's subtrees were apart).
        case deposed
    }

    /// A beacon arrived on a session.
    mutating func received(_ beacon: TreeBeacon, on session: Int, now: UInt64) -> Reaction {
        defer { assertInvariants() }
        // A deposed root's word is not taken, whatever root it names now.
        if isDeposed(beacon.root, now: now) || peers[session].map({ isDeposed($0, now: now) }) == true { return .none }
        let previous = beacons[session]
        if let previous, names(previous), !names(beacon) { linger(session, now: now) }
        beacons[session] = beacon
        let mine = self.beacon
        if beacon.root == me {
            // This node's own root, as an earlier run of it started it (a restart): the mesh
            // still follows it, so it is the root again, with a round above the last.
            guard isRoot, beacon.since < since else { return .none }
            since = beacon.since
            round = max(round, beacon.round) + 1
            heardAt = now
            return .changed
        }
        if deposes, beacon.root != root, beacon.since == since &+ 1, previous?.root == root, previous?.since == since,
           peers[session] != root, beacon.parent != me, beacon.hops < Self.maximumHops {
            // A peer that followed this node's root now follows a root just younger: it deposed
            // that root, or follows a node that did (an honest node leaves a root only for an
            // older one, or after 3 silent rounds for its own tree, `since` now). The first copy
            // is taken, as of a new round: the peer took it before this node, so it is not below.
            let old = root
            adopt(beacon, from: session, now: now)
            depose(old, now: now)
            return .deposed
        }
        if mine.prefersRoot(over: beacon) { return .answer }
        let sameTree = beacon.root == root && beacon.since == since
        if sameTree && beacon.round <= round {
            // Another copy of the current round (or the parent's of the last): the parent's way,
            // which may have changed, or a shorter one.
            return settle(now: now) ? .changed : .none
        }
        // A child's echo (it reached the root through this node) and stale or distant state are
        // not adopted.
        guard beacon.parent != me, beacon.hops < Self.maximumHops, !isAvoided(session, now: now) else { return .none }
        if let last = retired[beacon.root], last.since == beacon.since, beacon.round <= last.round { return .none }
        guard beacon.prefersRoot(over: mine) || beacon.round > round else { return .none }
        // A new round of the same root keeps the parent unless this copy came a shorter way:
        // first arrivals vary with the moment's delays, and each change of parent costs a moment
        // in which neither parent pushes to this node.
        let kept = !sameTree ? nil : parent.flatMap { current -> TreeBeacon? in
            guard current != session, let last = beacons[current], last.root == root, last.since == since,
                  last.hops <= beacon.hops, !isAvoided(current, now: now) else { return nil }
            return last
        }
        root = beacon.root
        since = beacon.since
        round = beacon.round
        hops = (kept?.hops ?? beacon.hops) + 1
        if kept == nil, parent != session {
            if let parent, isAvoided(parent, now: now) { leftAvoided = true }
            linger(parent, now: now)
            parent = session
        }
        heardAt = now
        return .changed
    }

    /// Follows `beacon`'s root, round and way from `session`, its new parent.
    private mutating func adopt(_ beacon: TreeBeacon, from session: Int, now: UInt64) {
        root = beacon.root
        since = beacon.since
        round = beacon.round
        hops = beacon.hops + 1
        if parent != session {
            linger(parent, now: now)
            parent = session
        }
        heardAt = now
    }

    /// Whether `replica` is a root deposed until after `now`.
    func isDeposed(_ replica: ReplicaID, now: UInt64) -> Bool {
        deposed[replica].map { now < $0 } ?? false
    }

    /// Deposes `replica` (not this node) for `deposition`: the beacons of the links to it are
    /// dropped (such a link is a branch then, as to a peer without beacons: ops still go to it),
    /// and no later one is taken, so that no way leads through it.
    private mutating func depose(_ replica: ReplicaID, now: UInt64) {
        guard replica != me else { return }
        deposed = deposed.filter { now < $0.value }
        if deposed.count >= Self.retiredLimit, let first = deposed.min(by: { $0.value < $1.value }) { deposed[first.key] = nil }
        deposed[replica] = now + Self.deposition
        for (session, peer) in peers where peer == replica && session != parent { beacons[session] = nil }
    }

    /// Ops arrived on `session`: `new` of them not held before, made by `origins`. A node whose
    /// parent lags (`ParentWatch`: first for fewer than 1 in 9 of the new ops over 1.5 s or more while
    /// 16 or more of 3 origins came another way) gives it up. A child of the root deposes it: it
    /// roots the tree of a root just younger than the deposed one's (`since` + 1), which every
    /// node that follows the deposed root prefers to it, or follows such a tree when a peer
    /// already does. A node below leaves its parent (`leave`). Returns true when its beacon changed.
    mutating func receivedOps(on session: Int, new: Int, origins: some Sequence<ReplicaID>, now: UInt64) -> Bool {
        defer { assertInvariants() }
        guard deposes || leaves else { return false }
        let watched = leaves || hops == 1 ? parent : nil
        let patience = leaves ? ParentWatch.patience(hops: hops) : ParentWatch.silence
        guard watch.received(on: session, new: new, origins: origins, parent: watched, now: now, patience: patience), let parent,
              let suspect = peers[parent] else { return false }
        guard suspect == root else { return leave(parent, now: now) }
        guard deposes else {
            watch.watch(parent, now: now)
            return false
        }
        let withholder = root
        let deposedSince = since
        linger(parent, now: now)
        self.parent = nil
        depose(withholder, now: now)
        watch.watch(nil, now: now)
        if let (key, beacon) = beacons.filter({ $0.value.since == deposedSince &+ 1 && $0.value.root != withholder
                && $0.value.parent != me && $0.value.hops < Self.maximumHops }).min(by: { ($0.value.hops, $0.key) < ($1.value.hops, $1.key) }) {
            adopt(beacon, from: key, now: now)
            return true
        }
        root = me
        since = deposedSince &+ 1
        hops = 0
        round = round &+ 1
        heardAt = now
        return true
    }

    /// Whether the peer of `session` is a parent this node left for withholding, until after `now`.
    func isAvoided(_ session: Int, now: UInt64) -> Bool {
        guard !avoided.isEmpty, let peer = peers[session], let until = avoided[peer] else { return false }
        return now < until
    }

    /// Leaves the parent on `session`, which withholds ops, and avoids it as a parent for
    /// `deposition`: this node takes, within the round, the peer of the round not below it
    /// that is closest to the root, or else keeps the parent until the next round, whose first
    /// copy from a peer not avoided it takes (that copy's way does not pass through this node,
    /// which had not taken the round: no loop). A peer of the round is not below this node when
    /// its (hops, replica ID) is smaller than this node's, so two nodes leaving at once never
    /// take each other. (Hanging from no parent until then cut the subtree off from the ops the
    /// grafts into it brought: p99 1.3 s against 0.2 s, `gallery-bench mesh-sim --sabotage
    /// withholding-parent`.) A node with no other peer in the tree (no beacon of its root from
    /// a peer neither avoided, nor a child) does not leave: it could only leave the tree.
    /// Returns true when the beacon changed.
    private mutating func leave(_ session: Int, now: UInt64) -> Bool {
        guard leaves, let suspect = peers[session], !isAvoided(session, now: now) else {
            watch.watch(session, now: now)
            return false
        }
        let elsewhere = beacons.contains { key, beacon in
            key != session && beacon.root == root && beacon.since == since && beacon.parent != me && !isAvoided(key, now: now)
        }
        guard elsewhere else {
            watch.watch(session, now: now)
            return false
        }
        avoided = avoided.filter { now < $0.value }
        if avoided.count >= Self.retiredLimit, let first = avoided.min(by: { $0.value < $1.value }) { avoided[first.key] = nil }
        avoided[suspect] = now + Self.deposition
        parentsLeft += 1
        let replacement = beacons.filter { key, beacon in
            beacon.root == root && beacon.since == since && beacon.round == round && beacon.parent != me
                && !isAvoided(key, now: now) && peers[key] != nil
                && (beacon.hops, peers[key] ?? me) < (hops, me) && beacon.hops + 1 <= Self.maximumHops
        }.min { ($0.value.hops, $0.key) < ($1.value.hops, $1.key) }
        watch.watch(replacement?.key ?? session, now: now)
        guard let replacement else { return false }
        linger(session, now: now)
        parent = replacement.key
        hops = replacement.value.hops + 1
        return true
    }

    /// Settles the parent within the current round: a peer whose beacon of this round came a
    /// strictly shorter way than this node's replaces the parent; a parent whose way changed
    /// changes this node's hops; a parent that is gone or now hangs below this node is replaced
    /// by the peer of this round closest to the root among those not below it (fewer hops than
    /// this node), or none (orphaned until the next round). The parent wins ties: first arrivals
    /// vary with the moment's delays. Returns whether this node's beacon changed.
    private mutating func settle(now: UInt64) -> Bool {
        guard !isRoot else { return false }
        let current = parent.flatMap { beacons[$0] }
        let parentValid = current.map { $0.root == root && $0.since == since && $0.parent != me } ?? false
        // A parent left for withholding is kept only until a peer not below this node replaces it.
        let bound = parentValid && !(parent.map { isAvoided($0, now: now) } ?? false) ? max(hops, 1) - 1 : hops
        let better = beacons.filter { key, beacon in
            key != parent && beacon.root == root && beacon.since == since && beacon.round == round
                && beacon.parent != me && beacon.hops < bound && !isAvoided(key, now: now)
        }.min { ($0.value.hops, $0.key) < ($1.value.hops, $1.key) }
        if let better {
            linger(parent, now: now)
            parent = better.key
            hops = better.value.hops + 1
            return true
        }
        if parentValid, let current {
            guard current.hops + 1 != hops else { return false }
            hops = current.hops + 1
            return true
        }
        guard parent != nil else { return false }
        linger(parent, now: now)
        parent = nil
        return true
    }

    /// A session ended. Returns true when this node's beacon changed: it lost its parent and took,
    /// among the peers of the same round no deeper than itself (so none below it), the one
    /// closest to the root; or none is left, and it waits, orphaned, for the next round.
    mutating func disconnected(_ session: Int, now: UInt64) -> Bool {
        defer { assertInvariants() }
        beacons[session] = nil
        peers[session] = nil
        lingering[session] = nil
        guard session == parent else { return false }
        return settle(now: now)
    }

    /// The root's beat: a root whose last round is `interval` old starts the next one (numbered
    /// above every earlier one, `wallMilliseconds` keeping that true across restarts); a node
    /// that heard no new round for `timeout` gives its root up and roots its own tree. Returns
    /// true when this node's beacon changed.
    mutating func tick(now: UInt64, interval: UInt64, timeout: UInt64, wallMilliseconds: UInt64) -> Bool {
        defer { assertInvariants() }
        if !isRoot {
            guard now >= heardAt, now - heardAt > timeout else { return false }
            retired[root] = (since, round)
            if retired.count > Self.retiredLimit, let oldest = retired.min(by: { $0.value.since < $1.value.since }) {
                retired[oldest.key] = nil
            }
            root = me
            since = wallMilliseconds
            hops = 0
            parent = nil
        } else if round > 0, now >= heardAt, now - heardAt < interval {
            return false
        }
        round = max(round + 1, wallMilliseconds)
        heardAt = now
        return true
    }

    /// The tree's invariants, checked in debug builds after every change: the root has no parent
    /// and no hops; a node below it has at least one hop and a parent it holds a beacon of, or
    /// none (orphaned until the next round); the way is never longer than the bound.
    private func assertInvariants() {
        assert(isRoot == (hops == 0), "hops \(hops) for \(isRoot ? "the root" : "a node below the root")")
        assert(!isRoot || parent == nil, "the root has a parent")
        assert(parent.map { beacons[$0] != nil && peers[$0] != nil } ?? true, "the parent is a session with a beacon")
        assert(hops <= Self.maximumHops, "hops \(hops) beyond the bound")
    }
}
