import GalleryIO
import GalleryWire

/// Where a node's peers are and how it reaches them (protocol.md, "Addresses"): the address book
/// and its writer, the redials (`Redial`), and the rounds of gossip. It records each peer that
/// authenticates, makes the `addresses` frame sent right after the handshake (where this node
/// listens and the members it knows), takes what peers' frames say, and tells which dials are due.
/// Sans I/O but for handing each new version of the book to its writer: the node dials the
/// attempts returned and sends the announcements made (`SyncNode+Lifecycle`). Owned by the
/// node's loop.
struct PeerDirectory {
    /// The least time between two rounds of gossip to every peer.
    static let gossipInterval: UInt64 = 1_000_000_000

    /// The address book.
    var book = AddressBook()
    /// Writes the book to its store, when the node has one.
    var saver: AddressBookSaver?
    /// Each peer or pending address this node redials, with its backoff.
    var redial = Redial()
    /// Whether a peer announced a new address that the other peers should hear of.
    var gossipWanted = false
    /// When (uptime, nanoseconds) the last round of gossip went out.
    var lastGossipRound: UInt64 = 0

    /// An empty directory, with no store.
    init() {}

    /// The directory of a node about to start: the stored book (a damaged one is reported on
    /// `log` and rebuilt from `--peer` and gossip) with the configured `peers` added, at `now`
    /// (seconds since 1970).
    init(store: (any AddressBookStore)?, peers: [Endpoint], now: Double, node: String, log: NodeLog) {
        if let store {
            saver = AddressBookSaver(store: store, log: log)
            switch store.loadBook() {
            case .absent: break
            case .loaded(let stored):
                book = stored
                book.dropPeersWithoutAddresses()
            case .damaged(let reason):
                log("\(node): address book \(store.location) is damaged (\(reason)); starting without it, rebuilding it from --peer and from peers")
            }
        }
        for peer in peers { book.add(peer.description, source: .peer, now: now) }
    }

    /// Hands the book to its writer.
    func save() {
        saver?.save(book)
    }

    /// The node listens at `endpoint` (nil: nowhere) from now on; the book is stored.
    mutating func started(listening endpoint: Endpoint?) {
        if let endpoint { book.listen = endpoint.description }
        save()
    }

    /// An address the user gave (`connect`): recorded, and dialed at the next pass.
    mutating func learn(_ endpoint: Endpoint, source: AddressSource, now: Double) {
        if book.add(endpoint.description, source: source, now: now) { save() }
        redial.dialSoon(.address(endpoint.description))
    }

    /// A connection authenticated as `peer`: it goes in the book, with the address it was
    /// `dialed` at for an outbound one, before any duplicate is resolved.
    mutating func connected(_ peer: PeerIdentity, dialed: String?, now: Double) {
        book.connected(PeerKey(peer), name: peer.name, replica: peer.replica.description, dialed: dialed, now: now)
        save()
    }

    /// The `addresses` frame for the peer `recipient`: where this node listens (`listening`) and
    /// the members it knows, those `connected` with age 0.
    func announcement(to recipient: PeerKey, listening: [Endpoint], connected: Set<PeerKey>, now: Double) -> AddressAnnouncement {
        let listen = listening.prefix(AddressAnnouncement.maximumListen).map { WireAddress(host: $0.host, port: $0.port) }
        let members = book.gossip(excluding: recipient, connected: connected, now: now, limit: AddressAnnouncement.maximumMembers)
        return AddressAnnouncement(
            listen: listen,
            members: members.map { member in
                AddressAnnouncement.Member(
                    id: member.key.rawValue, name: member.name, age: member.age,
                    addresses: member.addresses.compactMap { Endpoint($0).map { WireAddress(host: $0.host, port: $0.port) } })
            })
    }

    /// A peer's `addresses` frame: its listen addresses (an unspecified host read as `seenHost`,
    /// the host it is reached at) replace what the book had from announce and gossip; what it
    /// says of other members adds addresses of peers the book knows (never of this node, `own`).
    /// A change in a peer's own addresses is passed on to the other peers at the next round of
    /// gossip, and the peers it names are dialed at once; gossip is never passed on at once, so a
    /// frame never makes more frames.
    mutating func received(_ announcement: AddressAnnouncement, from key: PeerKey, seenHost: String?, own: PeerKey, now: Double) {
        let listen = announcement.listen.compactMap {
            AddressBook.address(announcedHost: $0.host, port: $0.port, seenHost: seenHost)
        }
        let moved = book.announced(key, addresses: listen, now: now)
        let members = announcement.members.map { member in
            AddressBook.Gossip(
                key: PeerKey(rawValue: member.id), name: member.name, age: member.age,
                addresses: member.addresses.compactMap {
                    AddressBook.address(announcedHost: $0.host, port: $0.port, seenHost: nil)
                })
        }
        let gossiped = book.gossiped(members, from: key, own: own, now: now)
        if moved {
            gossipWanted = true
            // A peer that moved is dialed at its new address at once.
            for other in members.map(\.key) + [key] { redial.dialSoon(.peer(other)) }
        }
        if moved || gossiped { save() }
    }

    /// A connection to `key` ended: the peer was seen now, and is redialed soon when no other
    /// connection to it is left.
    mutating func disconnected(_ key: PeerKey, stillConnected: Bool, now: Double) {
        book.disconnected(key, stillConnected: stillConnected, now: now)
        save()
        if !stillConnected { redial.disconnected(.peer(key)) }
    }

    /// Whether a round of gossip goes out at `now` (uptime, nanoseconds): a peer announced a
    /// change, and the last round is `gossipInterval` old. Taking it starts the interval again.
    mutating func takeGossipRound(now: UInt64) -> Bool {
        guard gossipWanted, now &- lastGossipRound >= Self.gossipInterval else { return false }
        gossipWanted = false
        lastGossipRound = now
        return true
    }

    /// The dials due at `now` (`Redial.pass`): every peer of the book with an address that is not
    /// `connected`, and every pending address. `connected` is asked only when some peer has an
    /// address to dial (inbound peers that announce none are the many, and this runs ten times a
    /// second). An address that is not HOST:PORT waits `badAddressDelay`.
    mutating func dueAttempts(now: UInt64, badAddressDelay: UInt64, connected: () -> Set<PeerKey>) -> [Redial.Attempt] {
        var connectedKeys: Set<PeerKey>?
        var wanted: [(key: DialTarget.Key, addresses: [String])] = []
        for peer in book.peers where !peer.addresses.isEmpty {
            if connectedKeys == nil { connectedKeys = connected() }
            guard connectedKeys?.contains(peer.key) == false else { continue }
            wanted.append((.peer(peer.key), peer.addresses.map(\.address)))
        }
        for entry in book.pending { wanted.append((.address(entry.address), [entry.address])) }
        return redial.pass(wanted: wanted, now: now, badAddressDelay: badAddressDelay)
    }

    /// Removes a peer (by name or key) or a pending address from the book and stops dialing it.
    /// Returns whether something was removed, and the node ID of the peer removed (to unpin).
    mutating func forget(_ peerOrAddress: String) -> (forgotten: Bool, node: NodeID?) {
        let node = book.peers.first { $0.key.rawValue == peerOrAddress || $0.name == peerOrAddress }
            .flatMap { NodeID(rawValue: $0.key.rawValue) }
        guard book.forget(peerOrAddress) else { return (false, nil) }
        let kept = self.book
        redial.keep { key in
            switch key {
            case .peer(let peer): kept.peer(peer) != nil
            case .address(let address): kept.pending.contains { $0.address == address }
            }
        }
        save()
        return (true, node)
    }

    /// The peers in the book, connected (since when, by key in `connectedSince`) or not, and the
    /// addresses still waiting for an answer, with their redial state at `now` (uptime).
    func knownPeers(connectedSince since: [PeerKey: Double], now: UInt64) -> [KnownPeerStatus] {
        let peers = book.peers.map { peer in
            let (next, error) = since[peer.key] == nil ? redial.retry(.peer(peer.key), now: now) : (nil, nil)
            return KnownPeerStatus(
                key: peer.key.rawValue, name: peer.name, replica: peer.replica, connectedSince: since[peer.key],
                lastSeen: peer.lastSeen, addresses: peer.addresses, nextRetry: next, lastError: error)
        }
        let pending = book.pending.map { entry in
            let (next, error) = redial.retry(.address(entry.address), now: now)
            return KnownPeerStatus(
                key: nil, name: nil, replica: nil, connectedSince: nil, lastSeen: nil, addresses: [entry],
                nextRetry: next, lastError: error)
        }
        return peers + pending
    }
}
