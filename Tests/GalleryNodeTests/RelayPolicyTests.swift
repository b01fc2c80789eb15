import GalleryModel
@testable import GalleryNode
import Testing

/// Which peer gets what (protocol.md, "Relay"): the decisions of one link's `RelayPolicy`.
@Suite("Relay policy")
struct RelayPolicyTests {
    static let alice = ReplicaID(deriving: "alice")
    static let bob = ReplicaID(deriving: "bob")
    static let carol = ReplicaID(deriving: "carol")

    static func id(_ counter: UInt64, _ replica: ReplicaID) -> OpID {
        OpID(counter: counter, replica: replica)
    }

    @Test("A new link pushes every origin; ops the peer holds or is sent already are skipped")
    func newLinkPushesAndSkipsWhatThePeerHolds() {
        var policy = RelayPolicy()
        #expect(policy.route(Self.id(1, Self.alice)) == .push)
        #expect(policy.route(Self.id(1, Self.bob)) == .push)
        // Its sync_request said it holds alice up to 5.
        policy.learned(VersionVector([Self.alice: 5]))
        #expect(policy.route(Self.id(5, Self.alice)) == .skip)
        #expect(policy.route(Self.id(6, Self.alice)) == .push)
        // An op sent to it (or received from it) is not sent again.
        policy.holds(Self.id(6, Self.alice))
        #expect(policy.route(Self.id(6, Self.alice)) == .skip)
        #expect(policy.known == VersionVector([Self.alice: 6]))
    }

    @Test("A pruned origin is announced, not pushed; an announcement leaves out what the peer holds")
    func prunedOriginIsAnnounced() {
        var policy = RelayPolicy()
        policy.pruned([Self.alice])
        #expect(policy.route(Self.id(3, Self.alice)) == .announce)
        #expect(policy.route(Self.id(3, Self.bob)) == .push)
        policy.announce(Self.id(3, Self.alice))
        policy.announce(Self.id(7, Self.alice))
        policy.announce(Self.id(2, Self.alice))
        policy.pruned([Self.carol])
        policy.announce(Self.id(4, Self.carol))
        // Meanwhile the peer told us it holds carol up to 4.
        policy.learned(VersionVector([Self.carol: 4]))
        #expect(policy.takeAnnouncement() == VersionVector([Self.alice: 7]))
        #expect(policy.takeAnnouncement() == nil, "an announcement is sent once")
    }

    @Test("Duplicates on a live link prune their origins once; not while a catch-up is awaited; again after a graft")
    func duplicatesPruneOnce() {
        var policy = RelayPolicy()
        policy.askedCatchUp()
        #expect(policy.receivedDuplicates(of: [Self.alice]).isEmpty, "a catch-up answer may repeat what we hold")
        policy.caughtUp(VersionVector([Self.alice: 2]))
        #expect(policy.receivedDuplicates(of: [Self.alice, Self.bob]) == [Self.alice, Self.bob].sorted())
        #expect(policy.receivedDuplicates(of: [Self.alice]).isEmpty, "pruned already")
        policy.grafting([Self.alice])
        #expect(policy.awaitedCatchUps == 1)
        #expect(policy.receivedDuplicates(of: [Self.alice]).isEmpty, "the graft's answer is awaited")
        policy.caughtUp(VersionVector())
        #expect(policy.receivedDuplicates(of: [Self.alice]) == [Self.alice], "grafted, so it may be pruned again")
    }

    @Test("A graft makes the link eager again for the origins the peer lacks, not for the others")
    func graftRestoresLackingOrigins() {
        var policy = RelayPolicy()
        policy.pruned([Self.alice, Self.bob])
        policy.grafted(VersionVector([Self.alice: 4, Self.bob: 9]), origins: [Self.alice])
        #expect(policy.route(Self.id(7, Self.alice)) == .push)
        #expect(policy.route(Self.id(10, Self.bob)) == .announce)
        #expect(policy.route(Self.id(4, Self.alice)) == .skip, "the graft's vector says what it holds")
    }

    @Test("The origins a peer holds more of than this node are what it lacks")
    func lackingOrigins() {
        var policy = RelayPolicy()
        policy.learned(VersionVector([Self.alice: 5, Self.bob: 2]))
        #expect(policy.lacking(from: VersionVector([Self.alice: 5, Self.bob: 1])) == [Self.bob])
        #expect(policy.lacking(from: VersionVector([Self.alice: 9, Self.bob: 2])).isEmpty)
    }

    @Test("The peer's own ops are never pruned on its direct link")
    func directLinkOfTheOriginStays() {
        var policy = RelayPolicy(peer: Self.bob)
        #expect(policy.receivedDuplicates(of: [Self.alice, Self.bob]) == [Self.alice])
    }

    @Test("A graft is due only when ops the peer held are still missing a timeout later, not for a stream that keeps arriving")
    func graftDueOnlyForOpsThatDoNotCome() {
        let timeout: UInt64 = 400
        var policy = RelayPolicy()
        policy.learned(VersionVector([Self.alice: 10]))
        #expect(policy.dueGraft(version: VersionVector([Self.alice: 8]), now: 1_000, timeout: timeout) == nil)
        // A busy stream: what was announced at 1,000 arrived by 1,300, newer ops are announced meanwhile.
        policy.learned(VersionVector([Self.alice: 20]))
        #expect(policy.dueGraft(version: VersionVector([Self.alice: 12]), now: 1_300, timeout: timeout) == nil)
        #expect(policy.dueGraft(version: VersionVector([Self.alice: 19]), now: 1_600, timeout: timeout) == nil)
        #expect(policy.dueGraft(version: VersionVector([Self.alice: 20]), now: 1_900, timeout: timeout) == nil)
        // Something announced that never comes.
        policy.learned(VersionVector([Self.alice: 25, Self.bob: 3]))
        #expect(policy.dueGraft(version: VersionVector([Self.alice: 25]), now: 2_000, timeout: timeout) == nil)
        #expect(policy.dueGraft(version: VersionVector([Self.alice: 25]), now: 2_300, timeout: timeout) == nil)
        let due = policy.dueGraft(version: VersionVector([Self.alice: 25]), now: 2_400, timeout: timeout)
        #expect(due?.since == 2_000 && due?.origins == [Self.bob])
        // While the graft's answer is awaited, nothing more is due.
        policy.grafting([Self.bob])
        #expect(policy.dueGraft(version: VersionVector([Self.alice: 25]), now: 3_000, timeout: timeout) == nil)
    }

    @Test("Flooding (relay trees off) pushes everything and never prunes")
    func floodingPushesEverything() {
        var policy = RelayPolicy(trees: false)
        policy.learned(VersionVector([Self.alice: 5]))
        policy.pruned([Self.alice])
        #expect(policy.route(Self.id(3, Self.alice)) == .push)
        #expect(policy.receivedDuplicates(of: [Self.alice]).isEmpty)
    }

    @Test("A first duplicate queues its prune for the next announcement, a second sends it at once; a graft cancels a queued one")
    func prunesWaitForTheAnnouncementUnlessDuplicatesKeepComing() {
        var policy = RelayPolicy()
        #expect(policy.duplicatesArrived([Self.alice]).isEmpty)
        #expect(policy.duplicatesArrived([Self.bob, Self.carol]).isEmpty)
        #expect(policy.duplicatesArrived([Self.bob]) == [Self.bob], "a busy link: at once")
        policy.grafting([Self.carol])
        #expect(policy.takePrunes() == [Self.alice])
        #expect(policy.takePrunes().isEmpty, "taken once")
        #expect(policy.duplicatesArrived([Self.alice]).isEmpty, "pruned already")
    }

    @Test("Several duplicates of an origin in one frame prune it at once: a busy link, whose next flush brings more")
    func severalDuplicatesInOneFramePruneAtOnce() {
        var policy = RelayPolicy()
        #expect(policy.duplicatesArrived([Self.alice, Self.bob], several: [Self.bob]) == [Self.bob])
        #expect(policy.takePrunes() == [Self.alice], "the single duplicate waits for the announcement")
        #expect(policy.duplicatesArrived([Self.bob], several: [Self.bob]).isEmpty, "pruned already")
    }
}
