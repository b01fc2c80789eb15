import GalleryModel
@testable import GalleryNode
import Testing

/// Which peer gets what (protocol.md, "Relay"): the decisions of one link's `RelayPolicy`.
@Suite("Relay policy")
struct RelayPolicyTests {
    static let alice = ReplicaID(deriving: "alice")
    static let bob = ReplicaID(deriving: "bob")

    static func id(_ counter: UInt64, _ replica: ReplicaID) -> OpID {
        OpID(counter: counter, replica: replica)
    }

    @Test("A branch pushes every op; ops the peer holds or is sent already are skipped")
    func branchPushesAndSkipsWhatThePeerHolds() {
        var policy = RelayPolicy()
        #expect(policy.route(Self.id(1, Self.alice), branch: true) == .push)
        // Its sync_request said it holds alice up to 5.
        policy.learned(VersionVector([Self.alice: 5]))
        #expect(policy.route(Self.id(5, Self.alice), branch: true) == .skip)
        #expect(policy.route(Self.id(6, Self.alice), branch: true) == .push)
        // An op sent to it (or received from it) is not sent again.
        policy.holds(Self.id(6, Self.alice))
        #expect(policy.route(Self.id(6, Self.alice), branch: true) == .skip)
        #expect(policy.known == VersionVector([Self.alice: 6]))
    }

    @Test("A link off the tree announces its total when it changed, once; a branch announces nothing")
    func lazyLinkAnnouncesItsTotal() {
        var policy = RelayPolicy()
        #expect(policy.route(Self.id(3, Self.alice), branch: false) == .announce)
        let r1 = policy.takeAnnouncement(total: 12, branch: false)
        #expect(r1 == 12)
        let r2 = policy.takeAnnouncement(total: 12, branch: false)
        #expect(r2 == nil, "said already")
        let r3 = policy.takeAnnouncement(total: 15, branch: false)
        #expect(r3 == 15)
        let r4 = policy.takeAnnouncement(total: 20, branch: true)
        #expect(r4 == nil)
    }

    @Test("A graft makes a lazy link eager until a duplicate prunes it; a branch is never pruned")
    func graftUntilDuplicate() {
        var policy = RelayPolicy()
        let r5 = policy.receivedDuplicates(branch: false)
        #expect(!r5, "not grafted: nothing to prune")
        policy.grafted(VersionVector([Self.alice: 4]))
        #expect(policy.route(Self.id(7, Self.alice), branch: false) == .push)
        #expect(policy.route(Self.id(4, Self.alice), branch: false) == .skip, "the graft's vector says what it holds")
        let r6 = policy.receivedDuplicates(branch: true)
        #expect(!r6, "a branch's duplicates come from a tree changing parents")
        let r7 = policy.receivedDuplicates(branch: false)
        #expect(r7)
        #expect(policy.route(Self.id(8, Self.alice), branch: false) == .announce)
        let r8 = policy.receivedDuplicates(branch: false)
        #expect(!r8, "pruned once")
    }

    @Test("No prune while a catch-up is awaited (its answer may repeat what is held); the peer's prune ends a graft")
    func noPruneWhileCatchUpAwaited() {
        var policy = RelayPolicy()
        policy.grafting()
        #expect(policy.awaitedCatchUps == 1)
        let r9 = policy.receivedDuplicates(branch: false)
        #expect(!r9)
        policy.caughtUp(VersionVector())
        let r10 = policy.receivedDuplicates(branch: false)
        #expect(r10)
        policy.grafted(VersionVector())
        policy.pruned()
        #expect(policy.route(Self.id(9, Self.bob), branch: false) == .announce)
    }

    @Test("A graft is due only when ops the peer held are still missing a timeout later, not for a stream that keeps arriving")
    func graftDueOnlyForOpsThatDoNotCome() {
        let timeout: UInt64 = 400
        var policy = RelayPolicy()
        policy.learned(VersionVector([Self.alice: 10]))
        let r11 = policy.dueGraft(version: VersionVector([Self.alice: 8]), total: 8, now: 1_000, timeout: timeout)
        #expect(r11 == nil)
        // A busy stream: what was announced at 1,000 arrived by 1,300, newer ops are announced meanwhile.
        policy.learned(VersionVector([Self.alice: 20]))
        let r12 = policy.dueGraft(version: VersionVector([Self.alice: 12]), total: 12, now: 1_300, timeout: timeout)
        #expect(r12 == nil)
        let r13 = policy.dueGraft(version: VersionVector([Self.alice: 19]), total: 19, now: 1_600, timeout: timeout)
        #expect(r13 == nil)
        let r14 = policy.dueGraft(version: VersionVector([Self.alice: 20]), total: 20, now: 1_900, timeout: timeout)
        #expect(r14 == nil)
        // Something announced that never comes.
        policy.learned(VersionVector([Self.alice: 25, Self.bob: 3]))
        let r15 = policy.dueGraft(version: VersionVector([Self.alice: 25]), total: 25, now: 2_000, timeout: timeout)
        #expect(r15 == nil)
        let r16 = policy.dueGraft(version: VersionVector([Self.alice: 25]), total: 25, now: 2_300, timeout: timeout)
        #expect(r16 == nil)
        let due = policy.dueGraft(version: VersionVector([Self.alice: 25]), total: 25, now: 2_400, timeout: timeout)
        #expect(due?.since == 2_000 && due?.origins == [Self.bob])
        // While the graft's answer is awaited, nothing more is due.
        policy.grafting()
        let r17 = policy.dueGraft(version: VersionVector([Self.alice: 25]), total: 25, now: 3_000, timeout: timeout)
        #expect(r17 == nil)
    }

    @Test("An announced total above this node's own is a graft due when it stays above for the timeout")
    func totalAboveOwnIsAGraftDue() {
        let timeout: UInt64 = 400
        var policy = RelayPolicy()
        policy.announced(total: 30)
        let r18 = policy.dueGraft(version: VersionVector([Self.alice: 20]), total: 20, now: 1_000, timeout: timeout)
        #expect(r18 == nil)
        // Ops arrived meanwhile, the total reached: no graft.
        let r19 = policy.dueGraft(version: VersionVector([Self.alice: 30]), total: 30, now: 1_500, timeout: timeout)
        #expect(r19 == nil)
        policy.announced(total: 40)
        let r20 = policy.dueGraft(version: VersionVector([Self.alice: 30]), total: 30, now: 2_000, timeout: timeout)
        #expect(r20 == nil)
        let due = policy.dueGraft(version: VersionVector([Self.alice: 35]), total: 35, now: 2_400, timeout: timeout)
        #expect(due?.since == 2_000 && due?.origins == [], "the total names no origin")
    }

    @Test("Flooding (relay trees off) pushes everything and never prunes")
    func floodingPushesEverything() {
        var policy = RelayPolicy(trees: false)
        policy.learned(VersionVector([Self.alice: 5]))
        #expect(policy.route(Self.id(3, Self.alice), branch: false) == .push)
        policy.grafted(VersionVector())
        let r21 = policy.receivedDuplicates(branch: false)
        #expect(!r21)
        let r22 = policy.takeAnnouncement(total: 3, branch: false)
        #expect(r22 == nil)
    }

    @Test("One caught_up ends every catch-up awaited: a request that arrives while another is answered replaces it")
    func caughtUpEndsEveryAwaitedCatchUp() {
        var policy = RelayPolicy()
        policy.askedCatchUp()
        policy.grafting()
        #expect(policy.awaitedCatchUps == 2)
        policy.caughtUp(VersionVector([Self.alice: 3]))
        #expect(policy.awaitedCatchUps == 0)
        // So the link can be pruned and grafted again, not stuck waiting for a second caught_up.
        let pruned = policy.receivedDuplicates(branch: false)
        #expect(pruned)
        policy.announced(total: 50)
        let watch = policy.dueGraft(version: VersionVector([Self.alice: 3]), total: 3, now: 0, timeout: 10)
        #expect(watch == nil)
        let due = policy.dueGraft(version: VersionVector([Self.alice: 3]), total: 3, now: 10, timeout: 10)
        #expect(due?.since == 0)
    }
}
