import GalleryNode
import Testing

/// The address book's rules (protocol.md, section 10.1): attribution of dialed addresses, announce
/// replacing what announce and gossip said, gossip as hostile input, and the caps.
@Suite("Address book")
struct AddressBookTests {
    static let alice = PeerKey(rawValue: "alice")
    static let bob = PeerKey(rawValue: "bob")
    static let carol = PeerKey(rawValue: "carol")

    /// A book that has been connected to bob (dialed at 127.0.0.1:7002, a `--peer` address) and carol.
    static func book() -> AddressBook {
        var book = AddressBook()
        book.add("127.0.0.1:7002", source: .peer, now: 100)
        book.connected(bob, name: "bob", replica: "b", dialed: "127.0.0.1:7002", now: 110)
        book.connected(carol, name: "carol", replica: "c", dialed: nil, now: 120)
        return book
    }

    @Test("a configured address is pending until a dial there authenticates; then it is the peer's, keeping its source")
    func attribution() {
        let book = Self.book()
        #expect(book.pending.isEmpty)
        #expect(book.peer(Self.bob)?.addresses == [KnownAddress(address: "127.0.0.1:7002", source: .peer, lastSeen: 110)])
        #expect(book.peer(Self.carol)?.addresses == [])
        var moved = book
        // Someone else answers at bob's old address: it is carol's now, and no longer bob's.
        moved.connected(Self.carol, name: "carol", replica: "c", dialed: "127.0.0.1:7002", now: 130)
        #expect(moved.peer(Self.bob)?.addresses == [])
        #expect(moved.peer(Self.carol)?.addresses.map(\.address) == ["127.0.0.1:7002"])
    }

    @Test("an announcement replaces what announce and gossip said of the peer, keeps the user's addresses, and reports a change")
    func announce() {
        var book = Self.book()
        let changed1 = book.announced(Self.bob, addresses: ["127.0.0.1:8002"], now: 200)
        #expect(changed1)
        #expect(Set(book.peer(Self.bob)?.addresses.map(\.address) ?? []) == ["127.0.0.1:7002", "127.0.0.1:8002"])
        #expect(book.peer(Self.bob)?.addresses.first?.address == "127.0.0.1:8002", "most recently seen first")
        let changed2 = book.announced(Self.bob, addresses: ["127.0.0.1:8002"], now: 210)
        #expect(!changed2, "the same addresses are no change")
        let changed3 = book.announced(Self.bob, addresses: ["127.0.0.1:9002"], now: 220)
        #expect(changed3)
        #expect(Set(book.peer(Self.bob)?.addresses.map(\.address) ?? []) == ["127.0.0.1:7002", "127.0.0.1:9002"])
        // A peer not in the book (forgotten) is not re-added by its announcement.
        let changed4 = book.forget("bob")
        #expect(changed4)
        let changed5 = book.announced(Self.bob, addresses: ["127.0.0.1:9002"], now: 230)
        #expect(!changed5)
        #expect(book.peer(Self.bob) == nil)
    }

    @Test("gossip adds addresses of known peers only, never of the sender or this node, never steals an address, never dates from the future")
    func gossipIsHostileInput() {
        var book = Self.book()
        let gossip: [AddressBook.Gossip] = [
            .init(key: PeerKey(rawValue: "mallory"), name: "mallory", age: 0, addresses: ["10.0.0.66:1"]),
            .init(key: Self.bob, name: "bob", age: 0, addresses: ["10.0.0.2:1"]),
            .init(key: Self.alice, name: "alice", age: 0, addresses: ["10.0.0.1:1"]),
            .init(key: Self.carol, name: "carol", age: 5, addresses: ["10.0.0.3:1", "127.0.0.1:7002"]),
        ]
        let changed6 = book.gossiped(gossip, from: Self.bob, own: Self.alice, now: 300)
        #expect(changed6)
        #expect(book.peer(PeerKey(rawValue: "mallory")) == nil, "a stranger is not added")
        #expect(book.peer(Self.alice) == nil)
        #expect(book.peer(Self.bob)?.addresses.map(\.address) == ["127.0.0.1:7002"], "nothing about the sender, nothing stolen")
        #expect(book.peer(Self.carol)?.addresses == [KnownAddress(address: "10.0.0.3:1", source: .gossip, lastSeen: 295)])
        // An age beyond any bound is clamped; the same gossip again changes nothing.
        let changed7 = book.gossiped(gossip, from: Self.bob, own: Self.alice, now: 300)
        #expect(!changed7)
        let ancient = book.gossiped([.init(key: Self.carol, name: "carol", age: .max, addresses: ["10.0.0.3:1"])],
                                    from: Self.bob, own: nil, now: 300)
        #expect(!ancient)
    }

    @Test("the caps: 8 addresses a peer (gossip dropped first), 64 peers (least recently seen dropped), 16 pending addresses")
    func caps() {
        var book = Self.book()
        book.announced(Self.carol, addresses: (0..<4).map { "127.0.0.1:\(8000 + $0)" }, now: 400)
        let flood = (0..<100).map { "10.1.0.\($0):1" }
        book.gossiped([.init(key: Self.carol, name: "carol", age: 0, addresses: flood)], from: Self.bob, own: nil, now: 500)
        book.gossiped([.init(key: Self.carol, name: "carol", age: 0, addresses: Array(flood.dropFirst(8)))],
                      from: Self.bob, own: nil, now: 600)
        let carol = book.peer(Self.carol)?.addresses ?? []
        #expect(carol.count == AddressBook.maximumAddressesPerPeer)
        #expect(carol.filter { $0.source == .announce }.count == 4, "announced addresses outrank gossip")
        for index in 0..<100 { book.connected(PeerKey(rawValue: "n\(index)"), name: "n\(index)", replica: nil, dialed: nil, now: 1_000 + Double(index)) }
        #expect(book.peers.count == AddressBook.maximumPeers)
        #expect(book.peer(PeerKey(rawValue: "n99")) != nil && book.peer(PeerKey(rawValue: "n0")) == nil && book.peer(Self.bob) == nil)
        for index in 0..<40 { book.add("192.0.2.1:\(index + 1)", source: .connect, now: 2_000) }
        #expect(book.pending.count == AddressBook.maximumPending)
        #expect(book.pending.last?.address == "192.0.2.1:40")
    }

    @Test("what a node tells: the most recently seen first, not the recipient, bounded, connected peers at age 0")
    func telling() {
        var book = Self.book()
        book.announced(Self.bob, addresses: ["127.0.0.1:8002"], now: 150)
        book.announced(Self.carol, addresses: ["127.0.0.1:8003"], now: 150)
        let told = book.gossip(excluding: Self.bob, connected: [], now: 200, limit: 32)
        #expect(told.map(\.key) == [Self.carol])
        #expect(told.first?.age == 80)
        #expect(book.gossip(excluding: Self.alice, connected: [Self.bob], now: 200, limit: 1).map(\.key) == [Self.carol])
        #expect(book.gossip(excluding: Self.alice, connected: [Self.bob], now: 200, limit: 2).first { $0.key == Self.bob }?.age == 0)
    }

    @Test("a peer with no address to dial leaves the book when its last connection ends, and at load")
    func addresslessPeers() {
        var book = Self.book()
        book.disconnected(Self.carol, stillConnected: true, now: 130)
        #expect(book.peer(Self.carol)?.lastSeen == 130, "another connection to carol is up: kept")
        book.disconnected(Self.bob, stillConnected: false, now: 140)
        #expect(book.peer(Self.bob)?.lastSeen == 140, "bob has an address: kept")
        var stored = book
        stored.dropPeersWithoutAddresses()
        #expect(stored.peers.map(\.key) == [Self.bob])
        book.disconnected(Self.carol, stillConnected: false, now: 150)
        #expect(book.peer(Self.carol) == nil)
    }

    @Test("forget removes a peer by name or a pending address, and reports whether it held one")
    func forget() {
        var book = Self.book()
        book.add("192.0.2.1:1", source: .connect, now: 1)
        let changed8 = book.forget("192.0.2.1:1")
        #expect(changed8)
        #expect(book.pending.isEmpty)
        let changed9 = book.forget("carol")
        #expect(changed9)
        let changed10 = book.forget("carol")
        #expect(!changed10)
        #expect(book.peers.map(\.key) == [Self.bob])
    }

    @Test("an unspecified listen host is recorded as the host the peer is seen at; from gossip it is dropped; port 0 and bad hosts too")
    func unspecifiedHosts() {
        #expect(AddressBook.address(announcedHost: "0.0.0.0", port: 7001, seenHost: "192.0.2.7") == "192.0.2.7:7001")
        #expect(AddressBook.address(announcedHost: "::", port: 7001, seenHost: "::1") == "[::1]:7001")
        #expect(AddressBook.address(announcedHost: "0.0.0.0", port: 7001, seenHost: nil) == nil)
        #expect(AddressBook.address(announcedHost: "10.0.0.3", port: 7003, seenHost: nil) == "10.0.0.3:7003")
        #expect(AddressBook.address(announcedHost: "10.0.0.3", port: 0, seenHost: nil) == nil)
        #expect(AddressBook.address(announcedHost: "bad host", port: 1, seenHost: nil) == nil)
        #expect(AddressBook.address(announcedHost: "a/b", port: 1, seenHost: nil) == nil)
    }
}
