import GalleryModel
import GalleryWire
@testable import GalleryNode
import Testing

/// A relay parent that keeps lagging what lazy peers announce is replaced (protocol.md, "Relay";
/// issue 26 item 4): a lagging root is given up and not followed again for a while, another
/// lagging parent gives way to a peer of the round closer to the root.
@Suite("Relay tree: lagging parents")
struct RelayTreeLagTests {
    typealias T = RelayTreeTests
    static let second: UInt64 = 1_000_000_000

    @Test("A root that is the parent and lags twice within the window is given up; its rounds are neither followed nor answered until the distrust ends")
    func laggingRootIsGivenUp() {
        var tree = T.node()
        // b is a root older than anyone, one link away.
        let step1 = tree.received(T.beacon(T.b, 500, 0, parent: nil), on: 1, now: 1)
        #expect(step1 == .changed)
        #expect(tree.parent == 1 && tree.root == T.b)
        // One graft for ops b had not brought: not yet.
        let step2 = tree.parentLagged(now: 2 * Self.second, wallMilliseconds: 2_000)
        #expect(!step2)
        #expect(tree.root == T.b)
        // A second, more than the window after the first: the first no longer counts.
        let late = 2 * Self.second + RelayTree.lagWindow + 1
        let step3 = tree.parentLagged(now: late, wallMilliseconds: 30_000)
        #expect(!step3)
        #expect(tree.root == T.b)
        // A third within the window of the second: b is given up; this node roots its own tree.
        let step4 = tree.parentLagged(now: late + Self.second, wallMilliseconds: 31_000)
        #expect(step4)
        #expect(tree.isRoot && tree.parent == nil)
        #expect(tree.beacon == T.beacon(T.me, 31_000, 0, parent: nil, since: 31_000))
        #expect(tree.isDistrusted(T.b, now: late + Self.second))
        // b's next round, though its root is older: not followed, not answered.
        let now = late + 2 * Self.second
        let step5 = tree.received(T.beacon(T.b, 600, 0, parent: nil), on: 1, now: now)
        #expect(step5 == .none)
        #expect(tree.isRoot)
        // A peer that still follows b: its link is a branch meanwhile (the trees differ).
        let step6 = tree.received(T.beacon(T.b, 600, 1, parent: T.b), on: 2, now: now)
        #expect(step6 == .none)
        #expect(tree.isBranch(2, now: now))
        // Another root, trusted, older than this node's own (younger than b): followed.
        let step7 = tree.received(T.beacon(T.d, 700, 0, parent: nil, since: 200), on: 3, now: now)
        #expect(step7 == .changed)
        #expect(tree.root == T.d && tree.parent == 3)
        // Once the distrust is over, b's later rounds are followed again (its root is older).
        let over = late + Self.second + RelayTree.distrustPeriod
        #expect(!tree.isDistrusted(T.b, now: over))
        let step8 = tree.received(T.beacon(T.b, 900, 0, parent: nil), on: 1, now: over)
        #expect(step8 == .changed)
        #expect(tree.root == T.b && tree.parent == 1)
    }

    @Test("A lagging parent below the root gives way to a peer of the round closer to the root, and is not taken back while distrusted")
    func laggingParentIsReplaced() {
        var tree = T.node()
        // Root a, two links away through b (session 1); c (session 2) is as close as b.
        let step9 = tree.received(T.beacon(T.a, 500, 1, parent: T.a), on: 1, now: 1)
        #expect(step9 == .changed)
        let step10 = tree.received(T.beacon(T.a, 500, 1, parent: T.a), on: 2, now: 2)
        #expect(step10 == .none)
        #expect(tree.parent == 1 && tree.beacon.hops == 2)
        let step11 = tree.parentLagged(now: Self.second, wallMilliseconds: 1_000)
        #expect(!step11)
        let step12 = tree.parentLagged(now: 2 * Self.second, wallMilliseconds: 2_000)
        #expect(step12)
        #expect(tree.parent == 2 && tree.root == T.a && tree.beacon.hops == 2)
        #expect(tree.isDistrusted(T.b, now: 2 * Self.second))
        // b's copy of the next round comes first: the round is not adopted through b.
        let step13 = tree.received(T.beacon(T.a, 501, 1, parent: T.a), on: 1, now: 3 * Self.second)
        #expect(step13 == .none)
        #expect(tree.parent == 2)
        let step14 = tree.received(T.beacon(T.a, 501, 1, parent: T.a), on: 2, now: 3 * Self.second + 1)
        #expect(step14 == .changed)
        #expect(tree.parent == 2 && tree.beacon.round == 501)
        // b, though a shorter way now, is not taken back within the round while distrusted.
        let step15 = tree.received(T.beacon(T.a, 501, 0, parent: nil), on: 1, now: 3 * Self.second + 2)
        #expect(step15 == .none)
        #expect(tree.parent == 2)
    }

    @Test("With no other peer of the round, a lagging parent leaves the node orphaned until the next round")
    func laggingOnlyParentOrphans() {
        var tree = T.node()
        let step16 = tree.received(T.beacon(T.a, 500, 1, parent: T.a), on: 1, now: 1)
        #expect(step16 == .changed)
        let step17 = tree.parentLagged(now: Self.second, wallMilliseconds: 1_000)
        #expect(!step17)
        let step18 = tree.parentLagged(now: 2 * Self.second, wallMilliseconds: 2_000)
        #expect(step18)
        #expect(tree.parent == nil && !tree.isRoot && tree.root == T.a)
        // The next round through c: followed.
        let step19 = tree.received(T.beacon(T.a, 501, 1, parent: T.a), on: 2, now: 3 * Self.second)
        #expect(step19 == .changed)
        #expect(tree.parent == 2)
    }

    @Test("Strikes count against the current parent only: a new parent starts with none")
    func strikesResetWithTheParent() {
        var tree = T.node()
        let step20 = tree.received(T.beacon(T.a, 500, 1, parent: T.a), on: 1, now: 1)
        #expect(step20 == .changed)
        let step21 = tree.parentLagged(now: Self.second, wallMilliseconds: 1_000)
        #expect(!step21)
        // A shorter way through c within the round: c is the parent now.
        let step22 = tree.received(T.beacon(T.a, 500, 0, parent: nil), on: 2, now: Self.second + 1)
        #expect(step22 == .changed)
        #expect(tree.parent == 2)
        let step23 = tree.parentLagged(now: 2 * Self.second, wallMilliseconds: 2_000)
        #expect(!step23)
        #expect(tree.parent == 2)
    }

    @Test("Lags less than a second apart are one lag: a graft and the ops it brings do not replace the parent")
    func closeLagsAreOne() {
        var tree = T.node()
        let adopted = tree.received(T.beacon(T.a, 500, 1, parent: T.a), on: 1, now: 1)
        #expect(adopted == .changed)
        let first = tree.parentLagged(now: Self.second, wallMilliseconds: 1_000)
        let close = tree.parentLagged(now: Self.second + RelayTree.lagSpacing - 1, wallMilliseconds: 1_999)
        #expect(!first && !close && tree.parent == 1)
        let apart = tree.parentLagged(now: Self.second + RelayTree.lagSpacing, wallMilliseconds: 2_000)
        #expect(apart && tree.parent == nil)
    }
}
