/// Every peer this node has ever been connected to, where each listens and when it was last seen,
/// and the addresses given by the user that no peer has answered at yet (protocol.md, "Addresses").
///
/// A pure value: the node keeps it on its loop, changes it with what it learns (connections,
/// `addresses` frames from peers) and stores it through `AddressBookStore`. It is bounded:
/// `maximumPeers` peers (the least recently seen goes first), `maximumAddressesPerPeer` addresses
/// each (gossip goes before announced addresses, which go before the user's, the oldest first), and
/// `maximumPending` addresses not yet attributed to a peer. An address belongs to one peer at a
/// time: the last one known to listen there.
package struct AddressBook: Codable, Hashable, Sendable {
    /// The most peers the book keeps.
    package static let maximumPeers = 64
    /// The most addresses kept for one peer.
    package static let maximumAddressesPerPeer = 8
    /// The most addresses kept that no peer has answered at yet (`--peer`, `connect`).
    package static let maximumPending = 16
    /// The oldest a gossiped last-seen time may be said to be (ten years, in seconds).
    static let maximumAge: UInt64 = 315_360_000

    /// Where this node listened last (`gallery serve` without `--listen` tries that port again).
    package var listen: String?
    /// The peers, in the order first recorded.
    package private(set) var peers: [KnownPeer] = []
    /// Addresses from `--peer` and `connect` that no peer has answered at yet.
    package private(set) var pending: [KnownAddress] = []

    /// An empty book.
    package init() {}

    /// The peer of this key, if known.
    package func peer(_ key: PeerKey) -> KnownPeer? {
        peers.first { $0.key == key }
    }

    /// The peer known to listen at `address`: the node a dial there means to reach.
    package func owner(of address: String) -> PeerKey? {
        peers.first { $0.addresses.contains { $0.address == address } }?.key
    }

    // MARK: Learning

    /// Records an address the user gave (`--peer`, `connect`): with the peer known to listen
    /// there, or pending until a dial there authenticates. Returns whether the book changed.
    @discardableResult
    package mutating func add(_ address: String, source: AddressSource, now: Double) -> Bool {
        for index in peers.indices {
            if let slot = peers[index].addresses.firstIndex(where: { $0.address == address }) {
                guard source.rank > peers[index].addresses[slot].source.rank else { return false }
                peers[index].addresses[slot].source = source
                return true
            }
        }
        if let slot = pending.firstIndex(where: { $0.address == address }) {
            guard source.rank > pending[slot].source.rank else { return false }
            pending[slot].source = source
            return true
        }
        pending.append(KnownAddress(address: address, source: source, lastSeen: now))
        if pending.count > Self.maximumPending { pending.removeFirst(pending.count - Self.maximumPending) }
        return true
    }

    /// A peer authenticated: it is recorded or refreshed, and the address this node dialed to
    /// reach it (nil for an inbound connection) becomes its, taken from wherever it was.
    package mutating func connected(_ key: PeerKey, name: String, replica: String?, dialed: String?, now: Double) {
        var source = AddressSource.announce
        if let dialed, let taken = take(dialed, from: key) { source = taken }
        let index = ensure(key, now: now)
        peers[index].name = name
        peers[index].replica = replica
        peers[index].lastSeen = now
        if let dialed { note(dialed, source: source, lastSeen: now, at: index) }
        trim()
    }

    /// A connection to the peer ended: it was seen now. A peer left with no connection and no
    /// address to dial (it never said where it listens, and was never dialed) leaves the book.
    package mutating func disconnected(_ key: PeerKey, stillConnected: Bool, now: Double) {
        guard let index = peers.firstIndex(where: { $0.key == key }) else { return }
        peers[index].lastSeen = max(peers[index].lastSeen, now)
        if !stillConnected && peers[index].addresses.isEmpty { peers.remove(at: index) }
    }

    /// Drops the peers with no address to dial (a book stored while such a peer was connected).
    package mutating func dropPeersWithoutAddresses() {
        peers.removeAll { $0.addresses.isEmpty }
    }

    /// The peer says it listens at `addresses`: they replace the addresses announce and gossip
    /// gave before (the user's stay). A peer not in the book (forgotten since it connected) is
    /// left out. Returns whether the peer's set of addresses changed.
    @discardableResult
    package mutating func announced(_ key: PeerKey, addresses: [String], now: Double) -> Bool {
        guard let index = peers.firstIndex(where: { $0.key == key }) else { return false }
        let before = Set(peers[index].addresses.map(\.address))
        let told = Array(addresses.prefix(Self.maximumAddressesPerPeer))
        peers[index].addresses.removeAll { $0.source.rank <= AddressSource.announce.rank && !told.contains($0.address) }
        for address in told {
            let source = take(address, from: key).map { $0.rank > AddressSource.announce.rank ? $0 : .announce } ?? .announce
            note(address, source: source, lastSeen: now, at: index)
        }
        trim()
        let after = Set(peer(key)?.addresses.map(\.address) ?? [])
        return before != after
    }

    /// What another member (`sender`) says of the peers it knows: new addresses of peers this
    /// book knows, with the last-seen times it tells. Members this book does not know, the sender
    /// itself (its own announcement says where it listens) and this node (`own`) are ignored,
    /// and gossip never takes an address from the peer or pending entry that holds it.
    /// Returns whether the book changed.
    @discardableResult
    package mutating func gossiped(_ members: [Gossip], from sender: PeerKey, own: PeerKey?, now: Double) -> Bool {
        var changed = false
        for member in members.prefix(Self.maximumPeers) where member.key != sender && member.key != own {
            guard let index = peers.firstIndex(where: { $0.key == member.key }) else { continue }
            let told = now - Double(min(member.age, Self.maximumAge))
            for address in member.addresses.prefix(Self.maximumAddressesPerPeer) {
                if let slot = peers[index].addresses.firstIndex(where: { $0.address == address }) {
                    if told > peers[index].addresses[slot].lastSeen {
                        peers[index].addresses[slot].lastSeen = told
                        changed = true
                    }
                } else if !isHeld(address) {
                    peers[index].addresses.append(KnownAddress(address: address, source: .gossip, lastSeen: told))
                    changed = true
                }
            }
        }
        trim()
        return changed
    }

    /// Removes a peer (by key or name) or a pending address; returns whether something was removed.
    @discardableResult
    package mutating func forget(_ peerOrAddress: String) -> Bool {
        let count = peers.count + pending.count
        peers.removeAll { $0.key.rawValue == peerOrAddress || $0.name == peerOrAddress }
        pending.removeAll { $0.address == peerOrAddress }
        return peers.count + pending.count != count
    }

    // MARK: Telling

    /// What this node tells a peer of the others: the most recently seen first, at most
    /// `limit`, each with at most `maximumAddressesPerPeer` addresses; those in `connected` have
    /// age 0.
    package func gossip(excluding recipient: PeerKey, connected: Set<PeerKey>, now: Double, limit: Int) -> [Gossip] {
        peers.filter { $0.key != recipient && !$0.addresses.isEmpty }
            .sorted { $0.lastSeen > $1.lastSeen }
            .prefix(limit)
            .map { peer in
                let age = connected.contains(peer.key) ? 0 : UInt64(max(0, min(now - peer.lastSeen, Double(Self.maximumAge))))
                return Gossip(key: peer.key, name: peer.name, age: age,
                              addresses: peer.addresses.prefix(Self.maximumAddressesPerPeer).map(\.address))
            }
    }

    /// One member as gossip tells of it.
    package struct Gossip: Hashable, Sendable {
        package var key: PeerKey
        package var name: String
        /// Seconds since the teller last had it connected (0: connected now).
        package var age: UInt64
        package var addresses: [String]

        package init(key: PeerKey, name: String, age: UInt64, addresses: [String]) {
            self.key = key
            self.name = name
            self.age = age
            self.addresses = addresses
        }
    }

    // MARK: Internals

    /// Whether a peer or the pending list holds `address`.
    private func isHeld(_ address: String) -> Bool {
        pending.contains { $0.address == address } || peers.contains { $0.addresses.contains { $0.address == address } }
    }

    /// Removes `address` from the pending list and from every peer but `key`; returns the most
    /// trusted source it had there, if it was anywhere.
    private mutating func take(_ address: String, from key: PeerKey) -> AddressSource? {
        var best: AddressSource?
        func keep(_ source: AddressSource) { if source.rank > (best?.rank ?? -1) { best = source } }
        for entry in pending where entry.address == address { keep(entry.source) }
        pending.removeAll { $0.address == address }
        for index in peers.indices {
            for entry in peers[index].addresses where entry.address == address { keep(entry.source) }
            if peers[index].key != key { peers[index].addresses.removeAll { $0.address == address } }
        }
        return best
    }

    /// The index of the peer of `key`, added when absent.
    private mutating func ensure(_ key: PeerKey, now: Double) -> Int {
        if let index = peers.firstIndex(where: { $0.key == key }) { return index }
        peers.append(KnownPeer(key: key, name: key.rawValue, replica: nil, lastSeen: now, addresses: []))
        return peers.count - 1
    }

    /// Adds or refreshes one address of the peer at `index`, keeping the more trusted source.
    private mutating func note(_ address: String, source: AddressSource, lastSeen: Double, at index: Int) {
        if let slot = peers[index].addresses.firstIndex(where: { $0.address == address }) {
            if source.rank > peers[index].addresses[slot].source.rank { peers[index].addresses[slot].source = source }
            peers[index].addresses[slot].lastSeen = max(peers[index].addresses[slot].lastSeen, lastSeen)
        } else {
            peers[index].addresses.append(KnownAddress(address: address, source: source, lastSeen: lastSeen))
        }
    }

    /// Applies the caps and orders every peer's addresses most recently seen first.
    private mutating func trim() {
        for index in peers.indices {
            var addresses = peers[index].addresses
            if addresses.count > Self.maximumAddressesPerPeer {
                addresses.sort { ($0.source.rank, $0.lastSeen) > ($1.source.rank, $1.lastSeen) }
                addresses.removeLast(addresses.count - Self.maximumAddressesPerPeer)
            }
            peers[index].addresses = addresses.sorted { $0.lastSeen > $1.lastSeen }
        }
        while peers.count > Self.maximumPeers {
            guard let oldest = peers.indices.min(by: { peers[$0].lastSeen < peers[$1].lastSeen }) else { break }
            peers.remove(at: oldest)
        }
    }
}
