import GalleryModel
import GalleryWire
@testable import GalleryNode
import Testing

/// The relay tree's decisions (protocol.md, "Relay"): roots, rounds, parents, children, a lost
/// parent, a silent root.
@Suite("Relay tree")
struct RelayTreeTests {
    static let a = ReplicaID(1), b = ReplicaID(2), c = ReplicaID(3), d = ReplicaID(4), me = ReplicaID(9)
    /// Long after any change: a former branch no longer lingers.
    static let later: UInt64 = 10_000_000_000

    /// A beacon of a root that has been one since 100 ms.
    static func beacon(_ root: ReplicaID, _ round: UInt64, _ hops: UInt64, parent: ReplicaID?, since: UInt64 = 100) -> TreeBeacon {
        TreeBeacon(root: root, since: since, round: round, hops: hops, parent: parent)
    }

    /// A node (`me`) connected on sessions 1 to 3 to b, c and d.
    static func node() -> RelayTree {
        var tree = RelayTree(me: me, now: 0, wallMilliseconds: 100)
        tree.connected(1, peer: b)
        tree.connected(2, peer: c)
        tree.connected(3, peer: d)
        return tree
    }

    @Test("A node roots its own tree until it hears of a preferred root, follows the first copy of a round, takes a shorter way within the round, and keeps its parent across rounds unless a shorter way comes")
    func followsTheShortestWay() {
        var tree = Self.node()
        #expect(tree.isRoot)
        let r1 = tree.tick(now: 0, interval: 10, timeout: 30, wallMilliseconds: 1_000)
        #expect(r1)
        #expect(tree.beacon == Self.beacon(Self.me, 1_000, 0, parent: nil))
        // A root as old with a larger ID is answered; one as old and smaller is followed.
        let r0 = tree.received(Self.beacon(ReplicaID(20), 7, 0, parent: nil), on: 1, now: 1)
        #expect(r0 == .answer)
        let r2 = tree.received(Self.beacon(Self.a, 500, 1, parent: Self.a), on: 2, now: 5)
        #expect(r2 == .changed)
        #expect(tree.beacon == Self.beacon(Self.a, 500, 2, parent: Self.c))
        // The same round by another link, as far: not taken (the parent wins ties).
        let r3 = tree.received(Self.beacon(Self.a, 500, 1, parent: Self.a), on: 3, now: 6)
        #expect(r3 == .none)
        #expect(tree.beacon.parent == Self.c)
        // The same round by a shorter way: taken.
        let r4 = tree.received(Self.beacon(Self.a, 500, 0, parent: nil), on: 1, now: 7)
        #expect(r4 == .changed)
        #expect(tree.beacon == Self.beacon(Self.a, 500, 1, parent: Self.b))
        #expect(tree.isBranch(1, now: Self.later) && !tree.isBranch(2, now: Self.later))
        // The next round comes first through c, not a shorter way: b stays the parent.
        let r5 = tree.received(Self.beacon(Self.a, 501, 1, parent: Self.a), on: 2, now: 8)
        #expect(r5 == .changed)
        #expect(tree.beacon == Self.beacon(Self.a, 501, 1, parent: Self.b))
        // b's copy of the round: its way got longer, so this node's too (and c is no shorter).
        let r6 = tree.received(Self.beacon(Self.a, 501, 1, parent: Self.a), on: 1, now: 9)
        #expect(r6 == .changed)
        #expect(tree.beacon == Self.beacon(Self.a, 501, 2, parent: Self.b))
    }

    @Test("A parent that now hangs below this node is replaced by a peer of the round not below it, or none")
    func parentBelowIsReplaced() {
        var tree = Self.node()
        _ = tree.received(Self.beacon(Self.a, 10, 1, parent: Self.a), on: 1, now: 0)   // parent b, hops 2
        _ = tree.received(Self.beacon(Self.a, 10, 1, parent: Self.a), on: 2, now: 1)   // c: as close as b
        let r1 = tree.received(Self.beacon(Self.a, 10, 3, parent: Self.me), on: 1, now: 2)
        #expect(r1 == .changed)
        #expect(tree.beacon == Self.beacon(Self.a, 10, 2, parent: Self.c))
        let r2 = tree.received(Self.beacon(Self.a, 10, 3, parent: Self.me), on: 2, now: 3)
        #expect(r2 == .changed)
        #expect(tree.beacon.parent == nil && !tree.isRoot, "orphaned until the next round")
    }

    @Test("A peer whose beacon names this node is a child: a branch; its echo is never adopted")
    func childrenAreBranches() {
        var tree = Self.node()
        _ = tree.received(Self.beacon(Self.a, 10, 1, parent: Self.a), on: 1, now: 0)
        #expect(tree.isBranch(3, now: Self.later), "no beacon from d yet (or a node that does not speak them): every op goes to it")
        _ = tree.received(Self.beacon(Self.a, 10, 1, parent: Self.a), on: 3, now: 0)
        #expect(!tree.isBranch(3, now: Self.later))
        let r5 = tree.received(Self.beacon(Self.a, 11, 3, parent: Self.me), on: 3, now: 1)
        #expect(r5 == .none, "a child's echo of a newer round")
        #expect(tree.isBranch(3, now: Self.later))
        #expect(tree.beacon.round == 10)
        // It follows another parent now (same round: not adopted here).
        _ = tree.received(Self.beacon(Self.a, 10, 2, parent: Self.c), on: 3, now: 2)
        #expect(!tree.isBranch(3, now: Self.later))
    }

    @Test("A peer on a larger root is answered with this node's beacon")
    func largerRootIsAnswered() {
        var tree = Self.node()
        _ = tree.received(Self.beacon(Self.a, 10, 0, parent: nil), on: 1, now: 0)
        let r6 = tree.received(Self.beacon(Self.c, 99, 0, parent: nil), on: 2, now: 1)
        #expect(r6 == .answer)
    }

    @Test("A lost parent is replaced by the closest peer of the same round that is not below this node")
    func lostParentIsReplaced() {
        var tree = Self.node()
        _ = tree.received(Self.beacon(Self.a, 10, 1, parent: Self.a), on: 1, now: 0)   // parent b, hops 2
        _ = tree.received(Self.beacon(Self.a, 10, 3, parent: Self.me), on: 3, now: 1)  // d: a child
        _ = tree.received(Self.beacon(Self.a, 10, 1, parent: Self.a), on: 2, now: 2)   // c: as close as b
        let r7 = tree.disconnected(1, now: 0)
        #expect(r7)
        #expect(tree.beacon == Self.beacon(Self.a, 10, 2, parent: Self.c))
        // Then c goes too: d is below this node, so none is left; orphaned until the next round.
        let r8 = tree.disconnected(2, now: 0)
        #expect(r8)
        #expect(tree.beacon.parent == nil && !tree.isRoot)
        let r9 = tree.received(Self.beacon(Self.a, 11, 3, parent: Self.c), on: 3, now: 3)
        #expect(r9 == .changed)
        #expect(tree.beacon == Self.beacon(Self.a, 11, 4, parent: Self.d))
        // Losing a link that is not the parent changes nothing.
        var other = Self.node()
        _ = other.received(Self.beacon(Self.a, 10, 1, parent: Self.a), on: 1, now: 0)
        let r10 = other.disconnected(2, now: 0)
        #expect(!r10)
    }

    @Test("A root's rounds come every interval; a silent root is given up, and its stale rounds are not taken back")
    func silentRootIsGivenUp() {
        var tree = Self.node()
        let r11 = tree.tick(now: 0, interval: 10, timeout: 30, wallMilliseconds: 0)
        #expect(r11)
        let r12 = tree.tick(now: 5, interval: 10, timeout: 30, wallMilliseconds: 0)
        #expect(!r12)
        let r13 = tree.tick(now: 10, interval: 10, timeout: 30, wallMilliseconds: 0)
        #expect(r13)
        #expect(tree.beacon.round == 2)
        _ = tree.received(Self.beacon(Self.a, 50, 1, parent: Self.b), on: 1, now: 20)
        let r14 = tree.tick(now: 40, interval: 10, timeout: 30, wallMilliseconds: 0)
        #expect(!r14)
        let r15 = tree.tick(now: 51, interval: 10, timeout: 30, wallMilliseconds: 1_000)
        #expect(r15)
        #expect(tree.isRoot && tree.beacon.round == 1_000 && tree.beacon.since == 1_000)
        // The old root's round 50, still echoing around, is not taken; its round 52 is.
        let r16 = tree.received(Self.beacon(Self.a, 50, 2, parent: Self.c), on: 2, now: 52)
        #expect(r16 == .none)
        let r17 = tree.received(Self.beacon(Self.a, 52, 1, parent: Self.a), on: 2, now: 53)
        #expect(r17 == .changed)
    }

    @Test("A younger root does not take the mesh over: a node that joins follows the tree it finds")
    func youngerRootDoesNotTakeOver() {
        var tree = Self.node()
        _ = tree.received(Self.beacon(Self.d, 10, 0, parent: nil, since: 50), on: 3, now: 0)
        // a has the smaller ID but became a root later.
        let reaction = tree.received(Self.beacon(Self.a, 99, 0, parent: nil, since: 70), on: 1, now: 1)
        #expect(reaction == .answer)
        #expect(tree.beacon.root == Self.d)
    }

    @Test("A restarted root that the mesh still follows is the root again, with a round above the last")
    func restartedRootResumes() {
        var tree = RelayTree(me: Self.a, now: 0, wallMilliseconds: 5_000)
        tree.connected(1, peer: Self.b)
        let ticked = tree.tick(now: 0, interval: 10, timeout: 30, wallMilliseconds: 5_000)
        #expect(ticked)
        // b still follows this node's earlier run (a root since 100, round 4,900).
        let reaction = tree.received(Self.beacon(Self.a, 4_900, 1, parent: Self.a, since: 100), on: 1, now: 1)
        #expect(reaction == .changed)
        #expect(tree.isRoot && tree.beacon.since == 100 && tree.beacon.round == 5_001)
    }

    @Test("A link that stops being a branch lingers as one for a moment; a peer on another root counts as one")
    func formerBranchLingers() {
        var tree = Self.node()
        _ = tree.received(Self.beacon(Self.a, 10, 1, parent: Self.a), on: 1, now: 0)
        _ = tree.received(Self.beacon(Self.a, 10, 1, parent: Self.a), on: 2, now: 0)
        #expect(!tree.isBranch(2, now: 1))
        _ = tree.received(Self.beacon(Self.a, 11, 1, parent: Self.a), on: 2, now: 1_000)
        // A new round came first through c but not a shorter way: b stays the parent.
        #expect(tree.isBranch(1, now: Self.later) && !tree.isBranch(2, now: Self.later))
        _ = tree.received(Self.beacon(Self.a, 12, 0, parent: nil), on: 2, now: 2_000)
        // A shorter way: c is the parent now, b lingers as a branch for `linger`.
        #expect(tree.isBranch(2, now: 2_001))
        #expect(tree.isBranch(1, now: 2_000 + RelayTree.linger - 1))
        #expect(!tree.isBranch(1, now: 2_000 + RelayTree.linger))
        // d follows another root (not yet merged): a branch meanwhile.
        _ = tree.received(Self.beacon(ReplicaID(50), 3, 0, parent: nil, since: 900), on: 3, now: 2_100)
        #expect(tree.isBranch(3, now: Self.later))
    }
}
