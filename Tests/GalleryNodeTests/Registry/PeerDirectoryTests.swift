import GalleryCrypto
import GalleryIO
import GalleryModel
@testable import GalleryNode
import GalleryWire
import Synchronization
import Testing

/// The peer directory alone (`PeerDirectory`), without a node: loading the book, dials due for
/// what the user gave and for peers that moved, the `addresses` frame, gossip rounds, forgetting.
@Suite struct PeerDirectoryTests {
    static let second: UInt64 = 1_000_000_000

    /// A book store in memory that records what it is given.
    final class MemoryBookStore: AddressBookStore {
        let location = "memory"
        let stored: AddressBookLoad
        let saved = Mutex<[AddressBook]>([])
        init(_ stored: AddressBookLoad) { self.stored = stored }
        func loadBook() -> AddressBookLoad { stored }
        func saveBook(_ book: AddressBook) throws { saved.withLock { $0.append(book) } }
    }

    private static func peer(_ name: String) -> PeerIdentity {
        PeerIdentity(replica: ReplicaID(UInt64.random(in: 1...UInt64.max)), name: name, version: 1,
                     maximumFrameSize: 1 << 20, key: X25519.PrivateKey().publicKey)
    }

    @Test func aDamagedBookIsReportedAndTheConfiguredPeersAreDialedAtOnce() {
        let lines = RecordedLines()
        var directory = PeerDirectory(
            store: MemoryBookStore(.damaged("bad checksum")), peers: [Endpoint(host: "127.0.0.1", port: 7001)], now: 100,
            node: "a", log: lines.log)
        #expect(lines.all.count == 1)
        #expect(lines.all.first?.contains("address book memory is damaged (bad checksum)") == true)
        let attempts = directory.dueAttempts(now: 1, badAddressDelay: Self.second) { [] }
        #expect(attempts == [Redial.Attempt(key: .address("127.0.0.1:7001"), endpoint: Endpoint(host: "127.0.0.1", port: 7001))])
        let again = directory.dueAttempts(now: 2, badAddressDelay: Self.second) { [] }
        #expect(again.isEmpty, "one attempt at a time")
    }

    @Test func aConnectedPeerIsNotDialedAndOneThatLeftIsRedialedAtOnce() {
        let store = MemoryBookStore(.absent)
        var directory = PeerDirectory(store: store, peers: [], now: 100, node: "a", log: .silent)
        let b = Self.peer("b")
        directory.connected(b, dialed: "127.0.0.1:7002", now: 101)
        directory.saver?.drain()
        #expect(store.saved.withLock { $0.last?.peer(PeerKey(b))?.addresses.map(\.address) } == ["127.0.0.1:7002"])
        let whileConnected = directory.dueAttempts(now: 1, badAddressDelay: Self.second) { [PeerKey(b)] }
        #expect(whileConnected.isEmpty)
        directory.disconnected(PeerKey(b), stillConnected: false, now: 102)
        let attempts = directory.dueAttempts(now: 2, badAddressDelay: Self.second) { [] }
        #expect(attempts.map(\.key) == [.peer(PeerKey(b))])
    }

    @Test func aPeerThatMovedIsDialedAtOnceAndTheOthersHearOfItOncePerRound() {
        var directory = PeerDirectory()
        let b = Self.peer("b")
        let own = PeerKey(Self.peer("a"))
        directory.connected(b, dialed: nil, now: 100)
        let beforeAnyMove = directory.takeGossipRound(now: 10 * Self.second)
        #expect(!beforeAnyMove)
        let frame = AddressAnnouncement(listen: [WireAddress(host: "0.0.0.0", port: 7003)], members: [])
        directory.received(frame, from: PeerKey(b), seenHost: "10.0.0.2", own: own, now: 101)
        #expect(directory.book.peer(PeerKey(b))?.addresses.map(\.address) == ["10.0.0.2:7003"], "an unspecified host is where it was seen")
        let afterTheMove = directory.dueAttempts(now: 10 * Self.second, badAddressDelay: Self.second) { [] }
        #expect(afterTheMove.map(\.key) == [.peer(PeerKey(b))])
        let firstRound = directory.takeGossipRound(now: 10 * Self.second)
        #expect(firstRound)
        let sameInstant = directory.takeGossipRound(now: 10 * Self.second + 1)
        #expect(!sameInstant, "taken")
        directory.received(AddressAnnouncement(listen: [WireAddress(host: "10.0.0.2", port: 7004)], members: []),
                           from: PeerKey(b), seenHost: "10.0.0.2", own: own, now: 102)
        let tooSoon = directory.takeGossipRound(now: 10 * Self.second + 2)
        #expect(!tooSoon, "at most one round a second")
        let aSecondLater = directory.takeGossipRound(now: 11 * Self.second)
        #expect(aSecondLater)
    }

    @Test func theAnnouncementTellsWhereThisNodeListensAndTheOtherMembers() {
        var directory = PeerDirectory()
        let b = Self.peer("b"), c = Self.peer("c")
        directory.connected(b, dialed: "127.0.0.1:7002", now: 100)
        directory.connected(c, dialed: "127.0.0.1:7003", now: 90)
        let frame = directory.announcement(
            to: PeerKey(b), listening: [Endpoint(host: "127.0.0.1", port: 7000)], connected: [PeerKey(c)], now: 200)
        #expect(frame.listen == [WireAddress(host: "127.0.0.1", port: 7000)])
        #expect(frame.members.map(\.id) == [PeerKey(c).rawValue], "not the recipient itself")
        #expect(frame.members.first?.age == 0, "connected now")
        #expect(frame.members.first?.addresses == [WireAddress(host: "127.0.0.1", port: 7003)])
    }

    @Test func forgettingAPeerStopsItsDialsAndNamesItsNode() {
        var directory = PeerDirectory()
        let b = Self.peer("b")
        directory.connected(b, dialed: "127.0.0.1:7002", now: 100)
        directory.learn(Endpoint(host: "127.0.0.1", port: 7009), source: .connect, now: 100)
        let bothDue = directory.dueAttempts(now: 1, badAddressDelay: Self.second) { [] }
        #expect(bothDue.count == 2)
        let forgotten = directory.forget("b")
        #expect(forgotten.forgotten && forgotten.node == b.nodeID)
        #expect(directory.knownPeers(connectedSince: [:], now: 2).map(\.addresses.first?.address) == ["127.0.0.1:7009"])
        let forgottenTwice = directory.forget("b")
        #expect(!forgottenTwice.forgotten)
        let pendingForgotten = directory.forget("127.0.0.1:7009")
        #expect(pendingForgotten.forgotten)
        #expect(directory.knownPeers(connectedSince: [:], now: 3).isEmpty)
    }
}
