import GalleryModel
import GalleryWire
@testable import GalleryNode
import Testing

/// A relay parent that keeps lagging what lazy peers announce is replaced (protocol.md, "Relay";
/// issue 26 item 4), and the root stays the root: within the round by a peer of the round that
/// cannot be below this node, from the next round on by counting the lagging parent's link as
/// `1 + penalty` links, so that the way to the root goes around it.
@Suite("Relay tree: lagging parents")
struct RelayTreeLagTests {
    typealias T = RelayTreeTests
    static let second: UInt64 = 1_000_000_000
    static let r = ReplicaID(50), s = ReplicaID(60), t = ReplicaID(70)

    /// Lags the parent twice, more than `lagSpacing` apart, from `start`: the second makes it hollow.
    static func lagTwice(_ tree: inout RelayTree, from start: UInt64) -> [RelayTree.LagOutcome] {
        [tree.parentLagged(now: start), tree.parentLagged(now: start + second / 2),
         tree.parentLagged(now: start + RelayTree.lagSpacing + 1)]
    }

    @Test("A root's child whose root lags takes a sibling with a smaller replica ID as its parent within the round, and keeps it across the root's next rounds")
    func laggingRootIsLeftForASibling() {
        var tree = T.node()   // me 9; b on session 1, c on 2, d on 3
        #expect(tree.received(T.beacon(T.b, 500, 0, parent: nil), on: 1, now: 1) == .changed)
        #expect(tree.received(T.beacon(T.b, 500, 1, parent: T.b), on: 2, now: 2) == .none)   // c: a sibling
        #expect(tree.received(T.beacon(T.b, 500, 2, parent: T.c), on: 3, now: 3) == .none)   // d: below c
        #expect(tree.parent == 1 && tree.hops == 1)
        let outcomes = Self.lagTwice(&tree, from: Self.second)
        #expect(outcomes == [.counted, .counted, .replaced(T.b)], "the second lag (within 1 s of the first) is the same lag")
        #expect(tree.parent == 2 && tree.hops == 2 && tree.root == T.b && !tree.isRoot)
        #expect(tree.beacon == T.beacon(T.b, 500, 2, parent: T.c))
        #expect(tree.isHollow(T.b, now: 3 * Self.second))
        // The root's next round comes first, straight from it: adopted, through c.
        let now = 11 * Self.second
        #expect(tree.received(T.beacon(T.b, 501, 0, parent: nil), on: 1, now: now) == .changed)
        #expect(tree.parent == 2 && tree.beacon.round == 501 && tree.hops == 2)
        // Another copy from the root within the round: its link counts 1 + penalty links, no shorter.
        #expect(tree.received(T.beacon(T.b, 501, 0, parent: nil), on: 1, now: now + 1) == .none)
        #expect(tree.received(T.beacon(T.b, 501, 1, parent: T.b), on: 2, now: now + 2) == .none)
        #expect(tree.parent == 2 && tree.hops == 2)
        #expect((8..<56).contains(tree.penalty))
        // Once the period is over, the root's link is one link again: the shorter way is taken.
        let over = 3 * Self.second + RelayTree.hollowPeriod
        #expect(!tree.isHollow(T.b, now: over))
        #expect(tree.received(T.beacon(T.b, 900, 0, parent: nil), on: 1, now: over) == .changed)
        #expect(tree.parent == 1 && tree.hops == 1)
    }

    @Test("With no peer of the round that cannot be below it, the lagging parent stays for the round; the next round goes around it")
    func laggingParentIsLeftAtTheNextRound() {
        var tree = RelayTree(me: ReplicaID(1), now: 0, wallMilliseconds: 100)
        tree.connected(1, peer: Self.r)
        tree.connected(2, peer: Self.s)
        tree.connected(3, peer: Self.t)
        #expect(tree.received(T.beacon(Self.r, 500, 0, parent: nil, since: 50), on: 1, now: 1) == .changed)
        #expect(tree.received(T.beacon(Self.r, 500, 1, parent: Self.r, since: 50), on: 2, now: 2) == .none)   // s: larger ID
        #expect(tree.received(T.beacon(Self.r, 500, 2, parent: Self.s, since: 50), on: 3, now: 3) == .none)
        let outcomes = Self.lagTwice(&tree, from: Self.second)
        #expect(outcomes == [.counted, .counted, .hollowFromNextRound(Self.r)])
        #expect(tree.parent == 1 && tree.hops == 1)
        // Within the round the hollow link still counts one link: a way never grows by more.
        #expect(tree.received(T.beacon(Self.r, 500, 0, parent: nil, since: 50), on: 1, now: 4 * Self.second) == .none)
        #expect(tree.hops == 1)
        // The next round: first from r (1 + penalty links), then s's copy, a shorter way.
        let now = 11 * Self.second
        #expect(tree.received(T.beacon(Self.r, 501, 0, parent: nil, since: 50), on: 1, now: now) == .changed)
        #expect(tree.parent == 1 && tree.hops == 1 + tree.penalty)
        #expect(tree.received(T.beacon(Self.r, 501, 1, parent: Self.r, since: 50), on: 2, now: now + 1) == .changed)
        #expect(tree.parent == 2 && tree.hops == 2 && tree.root == Self.r)
        // r's own copies of later rounds do not take the node back while r is hollow.
        #expect(tree.received(T.beacon(Self.r, 502, 0, parent: nil, since: 50), on: 1, now: now + 10 * Self.second) == .changed)
        #expect(tree.parent == 2, "s's way of the last round (2 links) is no longer than r's 1 + penalty")
    }

    @Test("Two siblings whose root lags at once never take each other; a peer deeper than this node is never taken")
    func siblingsNeverTakeEachOther() {
        let root = ReplicaID(50), low = ReplicaID(5), high = ReplicaID(6), deep = ReplicaID(7)
        func child(_ me: ReplicaID, sibling: ReplicaID) -> RelayTree {
            var tree = RelayTree(me: me, now: 0, wallMilliseconds: 100)
            tree.connected(1, peer: root)
            tree.connected(2, peer: sibling)
            tree.connected(3, peer: deep)
            _ = tree.received(T.beacon(root, 500, 0, parent: nil, since: 50), on: 1, now: 1)
            _ = tree.received(T.beacon(root, 500, 1, parent: root, since: 50), on: 2, now: 2)
            // A peer two links from the root under someone else: it may hang below this node.
            _ = tree.received(T.beacon(root, 500, 2, parent: ReplicaID(99), since: 50), on: 3, now: 3)
            return tree
        }
        var a = child(low, sibling: high), b = child(high, sibling: low)
        let outcomeA = Self.lagTwice(&a, from: Self.second).last
        let outcomeB = Self.lagTwice(&b, from: Self.second).last
        #expect(outcomeA == .hollowFromNextRound(root), "the smaller ID keeps the root for this round")
        #expect(outcomeB == .replaced(root))
        #expect(a.parent == 1 && b.parent == 2)
        #expect(!(a.beacon.parent == high && b.beacon.parent == low), "a loop of two")
    }

    @Test("Strikes count against the current parent only: a new parent starts with none")
    func strikesResetWithTheParent() {
        var tree = T.node()
        #expect(tree.received(T.beacon(T.a, 500, 1, parent: T.a), on: 1, now: 1) == .changed)
        #expect(tree.parentLagged(now: Self.second) == .counted)
        // A shorter way through c within the round: c is the parent now.
        #expect(tree.received(T.beacon(T.a, 500, 0, parent: nil), on: 2, now: Self.second + 1) == .changed)
        #expect(tree.parent == 2)
        #expect(tree.parentLagged(now: 3 * Self.second) == .counted)
        #expect(tree.parent == 2 && !tree.isHollow(T.c, now: 3 * Self.second))
    }
}
