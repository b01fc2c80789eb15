import GalleryModel
import GalleryWire
@testable import GalleryNode
import Testing

/// A parent that withholds ops is left (protocol.md, "Relay", "A parent that withholds"): a node
/// whose parent was first for fewer than 1 in 9 of its new ops over 1.5 s, while 16 or more of 3
/// origins came another way, takes a peer of the round not below it (or the next round's first
/// copy from another peer) and takes no beacon of that parent as its parent's for 10 minutes; a root's child finds
/// a trickling root the same way, and deposes it.
@Suite("Relay leaving")
struct RelayLeavingTests {
    static let a = RelayTreeTests.a, b = RelayTreeTests.b, c = RelayTreeTests.c, d = RelayTreeTests.d, me = RelayTreeTests.me
    static let second: UInt64 = 1_000_000_000
    /// The op (0-based, one every 100 ms) at which a node two links from the root judges: its
    /// watch lasts `ParentWatch.patience(hops: 2)`, 2 s, half a second more than the root's child's.
    static let judged = Int(ParentWatch.patience(hops: 2) / (second / 10))

    /// `me` two links below root a: its parent b (session 1, one link below a), c (session 2) one
    /// link below a too, d (session 3) its child. `others` adds peers: session, replica, beacon.
    static func below(_ others: [(Int, ReplicaID, TreeBeacon)] = [], leaves: Bool = true, sibling: Bool = true) -> RelayTree {
        var tree = RelayTree(me: me, now: 0, wallMilliseconds: 100)
        tree.leaves = leaves
        tree.connected(1, peer: b)
        tree.connected(3, peer: d)
        _ = tree.received(RelayTreeTests.beacon(a, 500, 1, parent: a), on: 1, now: 1)
        if sibling {
            tree.connected(2, peer: c)
            _ = tree.received(RelayTreeTests.beacon(a, 500, 1, parent: a), on: 2, now: 2)
        }
        _ = tree.received(RelayTreeTests.beacon(a, 500, 3, parent: me), on: 3, now: 3)
        for (session, peer, beacon) in others {
            tree.connected(session, peer: peer)
            _ = tree.received(beacon, on: session, now: 4)
        }
        return tree
    }

    /// Feeds `count` new ops from the child d, one every 100 ms from `start`, of three origins;
    /// the parent (session 1) sends one new op at each index in `fromParent` first. Returns the
    /// index at which the tree said its beacon changed, if any.
    static func feed(_ tree: inout RelayTree, count: Int, start: UInt64 = 10, fromParent: Set<Int> = [], parent: Int = 1) -> Int? {
        for index in 0..<count {
            let now = start + UInt64(index) * second / 10
            if fromParent.contains(index) { _ = tree.receivedOps(on: parent, new: 1, origins: [a], now: now) }
            if tree.receivedOps(on: 3, new: 1, origins: [ReplicaID(UInt64(100 + index % 3))], now: now) { return index }
        }
        return nil
    }

    @Test("A node whose parent below the root sends it nothing for 2 s (two links from the root) while 16 new ops of 3 origins come another way leaves it for a peer of the round closer to the root, and takes no round from it for 10 minutes")
    func silentParentIsLeft() {
        #expect(Self.judged == 20)
        var tree = Self.below()
        #expect(tree.beacon == RelayTreeTests.beacon(Self.a, 500, 2, parent: Self.b))
        #expect(Self.feed(&tree, count: 30) == Self.judged)
        // The root is kept; c, one link below it, is the new parent; b is avoided.
        #expect(tree.beacon == RelayTreeTests.beacon(Self.a, 500, 2, parent: Self.c))
        #expect(!tree.isDeposed(Self.b, now: 2 * Self.second) && !tree.isDeposed(Self.a, now: 2 * Self.second))
        #expect(tree.isAvoided(1, now: 2 * Self.second))
        // b's copy of the next round comes first: not taken; c's is.
        let r1 = tree.received(RelayTreeTests.beacon(Self.a, 501, 1, parent: Self.a), on: 1, now: 3 * Self.second)
        #expect(r1 == .none)
        #expect(tree.beacon.round == 500)
        let r2 = tree.received(RelayTreeTests.beacon(Self.a, 501, 1, parent: Self.a), on: 2, now: 3 * Self.second)
        #expect(r2 == .changed)
        #expect(tree.beacon == RelayTreeTests.beacon(Self.a, 501, 2, parent: Self.c))
        // Ten minutes later b may be the parent again.
        #expect(!tree.isAvoided(1, now: 3 * Self.second + RelayTree.deposition))
    }

    @Test("A parent that passes a trickle is left, and a root that does is deposed; a parent first for 1 in 9 of the new ops is kept")
    func tricklingParentIsLeft() {
        // One op from the parent a second, ten from below.
        var trickled = Self.below()
        #expect(Self.feed(&trickled, count: 40, fromParent: [0, 10, 20, 30]) == Self.judged)
        #expect(trickled.beacon.parent == Self.c)
        var root = RelayDepositionTests.childOfRoot()
        #expect(RelayDepositionTests.feed(&root, count: 40, fromRoot: [0, 10, 20, 30]) == ParentWatch.evidence - 1)
        #expect(root.isRoot && root.isDeposed(Self.a, now: 2 * Self.second))
        // Watching silence only (leaving off): the trickle restarts the watch each second.
        var silenceOnly = RelayDepositionTests.childOfRoot(leaves: false)
        #expect(RelayDepositionTests.feed(&silenceOnly, count: 40, fromRoot: [0, 10, 20, 30]) == nil)
        var below = Self.below(leaves: false)
        #expect(Self.feed(&below, count: 40) == nil)
        #expect(below.beacon.parent == Self.b)
        // An honest parent with a busy subtree below: first for 1 in 9.
        var honest = Self.below()
        #expect(Self.feed(&honest, count: 80, fromParent: Set(stride(from: 0, to: 80, by: ParentWatch.share))) == nil)
        #expect(honest.beacon.parent == Self.b)
    }

    @Test("A node leaving takes no peer that may be below it: none of more links, none of as many with a larger replica ID, none naming it; with no such peer it keeps the parent until the next round's first other copy, and with no other peer in the tree it stays")
    func leavingTakesNoPeerBelow() {
        // Peers of the round: e (ID 20) two links below the root like this node, f (ID 5) three.
        let e = ReplicaID(20), f = ReplicaID(5)
        var tree = Self.below([(5, e, RelayTreeTests.beacon(Self.a, 500, 2, parent: ReplicaID(30))),
                               (6, f, RelayTreeTests.beacon(Self.a, 500, 3, parent: ReplicaID(31)))], sibling: false)
        #expect(tree.beacon.parent == Self.b)
        // Judged at the 21st op (2 s), though its beacon does not change then.
        #expect(Self.feed(&tree, count: Self.judged) == nil)
        #expect(tree.parentsLeft == 0)
        #expect(Self.feed(&tree, count: 10, start: 10 + UInt64(Self.judged) * Self.second / 10) == nil)
        #expect(tree.parentsLeft == 1)
        // No peer to take within the round: b stays the parent until the next round (hanging
        // from none would cut this node's subtree off), avoided.
        #expect(tree.beacon == RelayTreeTests.beacon(Self.a, 500, 2, parent: Self.b))
        #expect(tree.isAvoided(1, now: 2 * Self.second))
        // The next round's first copy from a peer not avoided is taken: e's, not b's before it.
        let r0 = tree.received(RelayTreeTests.beacon(Self.a, 501, 1, parent: Self.a), on: 1, now: 3 * Self.second)
        #expect(r0 == .none)
        let r1 = tree.received(RelayTreeTests.beacon(Self.a, 501, 2, parent: ReplicaID(30)), on: 5, now: 3 * Self.second)
        #expect(r1 == .changed)
        #expect(tree.beacon == RelayTreeTests.beacon(Self.a, 501, 3, parent: e))
        // As many links with a smaller replica ID (g, ID 6 < 9) is taken at once.
        let g = ReplicaID(6)
        var smaller = Self.below([(5, g, RelayTreeTests.beacon(Self.a, 500, 2, parent: ReplicaID(30)))], sibling: false)
        #expect(Self.feed(&smaller, count: 30) == Self.judged)
        #expect(smaller.beacon == RelayTreeTests.beacon(Self.a, 500, 3, parent: g))
        // Only the parent and a child: nowhere else to go, the parent is kept.
        var alone = Self.below(sibling: false)
        #expect(Self.feed(&alone, count: 40) == nil)
        #expect(alone.beacon.parent == Self.b && !alone.isAvoided(1, now: 5 * Self.second))
    }
}
