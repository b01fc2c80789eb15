import GalleryModel
import GalleryWire
@testable import GalleryNode
import Testing

/// A root that withholds ops is deposed (protocol.md, "Relay", "A root that withholds"): its child
/// that gets the other subtrees' ops from below and none from it roots a tree just younger, the
/// nodes that followed the root follow that tree, and the deposed root's beacons are not taken.
@Suite("Relay deposition")
struct RelayDepositionTests {
    static let a = RelayTreeTests.a, b = RelayTreeTests.b, c = RelayTreeTests.c, me = RelayTreeTests.me
    /// The root's session (peer a).
    static let rootSession = 4
    static let second: UInt64 = 1_000_000_000

    /// `me` following root a (a root since 50) on session 4, with b (session 1) its child and c
    /// (session 2) a child of a as well.
    static func childOfRoot(deposes: Bool = true, leaves: Bool = true) -> RelayTree {
        var tree = RelayTreeTests.node()
        tree.deposes = deposes
        tree.leaves = leaves
        tree.connected(rootSession, peer: a)
        _ = tree.received(RelayTreeTests.beacon(a, 500, 0, parent: nil, since: 50), on: rootSession, now: 0)
        _ = tree.received(RelayTreeTests.beacon(a, 500, 2, parent: me, since: 50), on: 1, now: 1)
        _ = tree.received(RelayTreeTests.beacon(a, 500, 1, parent: a, since: 50), on: 2, now: 2)
        return tree
    }

    /// Feeds `count` new ops from b, one every 100 ms from `start`, made by three origins; returns
    /// at which of them (0-based) the tree said its beacon changed, if any. Ops from the root at
    /// the indexes in `fromRoot` come in between, `rootNew` of them new each time.
    static func feed(_ tree: inout RelayTree, count: Int, start: UInt64 = 10, fromRoot: Set<Int> = [], rootNew: Int = 1) -> Int? {
        for index in 0..<count {
            let now = start + UInt64(index) * second / 10
            if fromRoot.contains(index) {
                _ = tree.receivedOps(on: rootSession, new: rootNew, origins: [a], now: now)
            }
            let origin = ReplicaID(UInt64(100 + index % 3))
            if tree.receivedOps(on: 1, new: 1, origins: [origin], now: now) { return index }
        }
        return nil
    }

    @Test("A child of the root that has no op from it for 1.5 s while 16 new ops of 3 origins come from below deposes it: it roots a tree a millisecond younger, and takes no beacon of the deposed root again")
    func silentRootIsDeposed() {
        var tree = Self.childOfRoot()
        #expect(tree.beacon == RelayTreeTests.beacon(Self.a, 500, 1, parent: Self.a, since: 50))
        let at = Self.feed(&tree, count: 20)
        // The 16th op, 1.5 s after the first: both bounds met at once.
        #expect(at == ParentWatch.evidence - 1)
        #expect(tree.isRoot && tree.beacon.since == 51 && tree.beacon.parent == nil)
        #expect(tree.isDeposed(Self.a, now: 2 * Self.second))
        #expect(tree.isBranch(Self.rootSession, now: RelayTreeTests.later), "ops still go to it: its beacon is dropped")
        // A new round of the deposed root, and its word about any other root, are not taken.
        let r1 = tree.received(RelayTreeTests.beacon(Self.a, 600, 0, parent: nil, since: 50), on: Self.rootSession, now: 3 * Self.second)
        #expect(r1 == .none)
        let r2 = tree.received(RelayTreeTests.beacon(Self.c, 700, 1, parent: Self.c, since: 10), on: Self.rootSession, now: 3 * Self.second)
        #expect(r2 == .none)
        #expect(tree.isRoot && tree.beacon.since == 51)
        // Ten minutes later it may be followed again.
        #expect(!tree.isDeposed(Self.a, now: 2 * Self.second + RelayTree.deposition))
    }

    @Test("A root that passes ops on is kept: first for 1 in 9 of the new ops, it restarts the watch; too few origins below, or too short a watch, depose nothing")
    func passingRootIsKept() {
        var passing = Self.childOfRoot()
        #expect(Self.feed(&passing, count: 40, fromRoot: Set(stride(from: 0, to: 40, by: ParentWatch.share))) == nil)
        #expect(passing.beacon.root == Self.a && passing.beacon.parent == Self.a)
        // Watching silence only (leaving off), any ops frame from the root restarts the watch,
        // even one of duplicates.
        var silenceOnly = Self.childOfRoot(leaves: false)
        #expect(Self.feed(&silenceOnly, count: 40, fromRoot: [10, 25], rootNew: 0) == nil)
        #expect(silenceOnly.beacon.root == Self.a)
        // Two editors below only (a lone editor's subtree is not the rest of the mesh).
        var twoEditors = Self.childOfRoot()
        for index in 0..<40 {
            let deposed = twoEditors.receivedOps(on: 1, new: 1, origins: [ReplicaID(UInt64(100 + index % 2))], now: 10 + UInt64(index) * Self.second / 10)
            #expect(!deposed)
        }
        // 16 ops within less than 1.5 s.
        var quick = Self.childOfRoot()
        for index in 0..<30 {
            let deposed = quick.receivedOps(on: 1, new: 1, origins: [ReplicaID(UInt64(100 + index % 3))], now: 10 + UInt64(index) * Self.second / 20)
            #expect(!deposed)
        }
        // A node two links from the root with no other peer in the tree keeps its parent (it
        // could only leave the tree), and deposes nothing.
        var deeper = RelayTreeTests.node()
        _ = deeper.received(RelayTreeTests.beacon(Self.a, 500, 1, parent: Self.a, since: 50), on: 2, now: 0)
        #expect(Self.feed(&deeper, count: 40) == nil)
        // Switched off: the root is kept whatever comes.
        var off = Self.childOfRoot(deposes: false)
        #expect(Self.feed(&off, count: 40) == nil)
        #expect(off.beacon.parent == Self.a)
    }

    @Test("A node whose peer left the root they both followed for a root a millisecond younger follows it and deposes the old root; a young root that never followed it is answered")
    func depositionSpreads() {
        // c followed a; now it roots the tree of the deposition.
        var tree = Self.childOfRoot()
        let r1 = tree.received(RelayTreeTests.beacon(Self.c, 900, 0, parent: nil, since: 51), on: 2, now: 5)
        #expect(r1 == .deposed)
        #expect(tree.beacon == RelayTreeTests.beacon(Self.c, 900, 1, parent: Self.c, since: 51))
        #expect(tree.isDeposed(Self.a, now: 6))
        let r2 = tree.received(RelayTreeTests.beacon(Self.a, 501, 0, parent: nil, since: 50), on: Self.rootSession, now: 7)
        #expect(r2 == .none)
        #expect(tree.beacon.root == Self.c)
        // A node just started (a root since 51 by chance) that never followed a is no deposition.
        var other = Self.childOfRoot()
        other.connected(5, peer: ReplicaID(30))
        let r3 = other.received(RelayTreeTests.beacon(ReplicaID(30), 5, 0, parent: nil, since: 51), on: 5, now: 5)
        #expect(r3 == .answer)
        #expect(other.beacon.root == Self.a && !other.isDeposed(Self.a, now: 6))
        // Switched off: no deposition is followed.
        var off = Self.childOfRoot(deposes: false)
        let r4 = off.received(RelayTreeTests.beacon(Self.c, 900, 0, parent: nil, since: 51), on: 2, now: 5)
        #expect(r4 == .answer)
        #expect(off.beacon.root == Self.a)
    }

    @Test("A child that deposes its root while a peer already follows the deposition's tree joins that tree instead of rooting another")
    func deposerJoinsExistingTree() {
        var tree = Self.childOfRoot()
        // d (session 3) follows the tree of a deposition elsewhere (root 40, since 51); its first
        // beacon here, so this node does not follow it yet (d was never seen following a).
        _ = tree.received(RelayTreeTests.beacon(ReplicaID(40), 77, 2, parent: ReplicaID(41), since: 51), on: 3, now: 3)
        #expect(tree.beacon.root == Self.a)
        #expect(Self.feed(&tree, count: 20) == ParentWatch.evidence - 1)
        #expect(tree.beacon == RelayTreeTests.beacon(ReplicaID(40), 77, 3, parent: RelayTreeTests.d, since: 51))
        #expect(tree.isDeposed(Self.a, now: 2 * Self.second))
    }
}
