import Foundation
import GalleryIO
import GalleryWire

/// The address book in the node (protocol.md, "Addresses"): what the node records of each peer
/// that authenticates, the `addresses` frame it sends right after the handshake (where it listens
/// and the members it knows), what it learns from the frames of its peers, and the book's storage.
/// All on the node's loop, except `loadAddressBook`.
extension SyncNode {
    /// Seconds since 1970, the book's clock: the environment's calendar.
    var bookClock: Double { configuration.environment.wallClock() }
    /// The least time between two rounds of gossip to every peer.
    static let gossipInterval: UInt64 = 1_000_000_000

    /// Loads the stored book (a damaged one is reported and rebuilt from `--peer` and gossip) and
    /// adds the configured peers to it. Before the node starts.
    func loadAddressBook() {
        var book = AddressBook()
        var saver: AddressBookSaver?
        if let store = configuration.addressBook {
            saver = AddressBookSaver(store: store, log: configuration.log)
            switch store.loadBook() {
            case .absent: break
            case .loaded(let stored):
                book = stored
                book.dropPeersWithoutAddresses()
            case .damaged(let reason):
                configuration.log("\(configuration.name): address book \(store.location) is damaged (\(reason)); starting without it, rebuilding it from --peer and from peers")
            }
        }
        let now = bookClock
        for peer in configuration.peers { book.add(peer.description, source: .peer, now: now) }
        loop.sync {
            addresses.book = book
            addresses.saver = saver
        }
    }

    /// Records where the node listens and stores the book. On the loop, once started.
    func addressesStarted(listening endpoint: Endpoint?) {
        if let endpoint { addresses.book.listen = endpoint.description }
        saveAddressBook()
    }

    /// Hands the book to its writer. On the loop.
    func saveAddressBook() {
        addresses.saver?.save(addresses.book)
    }

    /// Records an address the user gave (`connect`) and dials it. On the loop.
    func learn(_ endpoint: Endpoint, source: AddressSource) {
        if addresses.book.add(endpoint.description, source: source, now: bookClock) { saveAddressBook() }
        addresses.redial.dialSoon(.address(endpoint.description))
        redialPass(now: clock.now)
    }

    /// A connection authenticated: the peer goes in the book (with the address dialed, for an
    /// outbound one), before any duplicate is resolved. On the loop.
    func recordConnected(_ connection: Connection, _ peer: PeerIdentity) {
        let now = bookClock
        addresses.book.connected(
            PeerKey(peer), name: peer.name, replica: peer.replica.description, dialed: peerRegistry.dialed[connection.id], now: now)
        peerRegistry.authenticated(connection.id, at: now)
        saveAddressBook()
    }

    /// Sends the peer where this node listens and the members it knows. On the loop.
    func announceAddresses(on connection: Connection) {
        guard let peer = connection.peer else { return }
        let announced = configuration.announce ?? condition.withLock { boundEndpoint }.map { [$0] } ?? []
        let listen = announced.prefix(AddressAnnouncement.maximumListen).map { WireAddress(host: $0.host, port: $0.port) }
        let members = addresses.book.gossip(
            excluding: PeerKey(peer), connected: connectedKeys, now: bookClock, limit: AddressAnnouncement.maximumMembers)
        _ = connection.send(.addresses(AddressAnnouncement(
            listen: listen,
            members: members.map { member in
                AddressAnnouncement.Member(
                    id: member.key.rawValue, name: member.name, age: member.age,
                    addresses: member.addresses.compactMap { Endpoint($0).map { WireAddress(host: $0.host, port: $0.port) } })
            })))
    }

    /// A peer's `addresses` frame: its listen addresses (an unspecified host read as the address
    /// it is reached at) replace what the book had from announce and gossip; what it says of
    /// other members adds addresses of peers the book knows. A change in a peer's own addresses
    /// is passed on to the other peers (at most one round a second); gossip is never passed on at
    /// once, so a frame never makes more frames. On the loop.
    func received(_ announcement: AddressAnnouncement, from connection: Connection) {
        guard let peer = connection.peer, sessions[connection.id] != nil else { return }
        let key = PeerKey(peer)
        let now = bookClock
        let seenHost = Endpoint(connection.remote)?.host
        let listen = announcement.listen.compactMap {
            AddressBook.address(announcedHost: $0.host, port: $0.port, seenHost: seenHost)
        }
        let moved = addresses.book.announced(key, addresses: listen, now: now)
        let members = announcement.members.map { member in
            AddressBook.Gossip(
                key: PeerKey(rawValue: member.id), name: member.name, age: member.age,
                addresses: member.addresses.compactMap {
                    AddressBook.address(announcedHost: $0.host, port: $0.port, seenHost: nil)
                })
        }
        let own = PeerKey(settings.nodeID)
        let gossiped = addresses.book.gossiped(members, from: key, own: own, now: now)
        if moved {
            addresses.gossipWanted = true
            // A peer that moved is dialed at its new address at once.
            for other in members.map(\.key) + [key] { addresses.redial.dialSoon(.peer(other)) }
        }
        if moved || gossiped { saveAddressBook() }
    }

    /// A connection ended: its peer was seen now, and is redialed soon when no other connection
    /// to it is left. On the loop.
    func addressConnectionClosed(_ connection: Connection) {
        peerRegistry.forgetAddress(of: connection.id)
        guard let peer = connection.peer else { return }
        let key = PeerKey(peer)
        let stillConnected = connectedKeys.contains(key)
        addresses.book.disconnected(key, stillConnected: stillConnected, now: bookClock)
        saveAddressBook()
        if !stillConnected { addresses.redial.disconnected(.peer(key)) }
    }

    /// The periodic part (from the liveness pass): redials, and a round of gossip when a peer
    /// announced a change. On the loop.
    func addressPass(now: UInt64) {
        redialPass(now: now)
        guard addresses.gossipWanted, now &- addresses.lastGossipRound >= Self.gossipInterval else { return }
        addresses.gossipWanted = false
        addresses.lastGossipRound = now
        for (id, connection) in connections where sessions[id] != nil { announceAddresses(on: connection) }
    }

    /// The keys of the authenticated peers. On the loop.
    var connectedKeys: Set<PeerKey> {
        peerRegistry.connectedKeys
    }

    /// Removes a peer (by name or key) or a pending address from the book, unpins it and stops
    /// dialing it; a live connection to it stays up. False when the book holds no such peer or address.
    package func forget(_ peerOrAddress: String) -> Bool {
        loop.sync { forgetOnLoop(peerOrAddress) }
    }

    /// `forget`, on the loop.
    func forgetOnLoop(_ peerOrAddress: String) -> Bool {
        let node = addresses.book.peers.first { $0.key.rawValue == peerOrAddress || $0.name == peerOrAddress }
            .flatMap { NodeID(rawValue: $0.key.rawValue) }
        guard addresses.book.forget(peerOrAddress) else { return false }
        peerKeys.unpin(node: node, address: Endpoint(peerOrAddress))
        let book = addresses.book
        addresses.redial.keep { key in
            switch key {
            case .peer(let peer): book.peer(peer) != nil
            case .address(let address): book.pending.contains { $0.address == address }
            }
        }
        saveAddressBook()
        notifyChange()
        return true
    }

    /// Waits until the stored book holds every change made so far (tests, `stop`).
    func flushAddressBook() {
        let saver = loop.sync { addresses.saver }
        saver?.drain()
    }
}
