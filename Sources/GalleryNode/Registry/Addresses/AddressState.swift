/// What a node knows of its peers' addresses and its redials: owned by the node's loop.
struct AddressState {
    /// The address book.
    var book = AddressBook()
    /// Writes the book to its store, when the node has one.
    var saver: AddressBookSaver?
    /// Each peer or pending address this node redials, with its backoff.
    var targets: [DialTarget.Key: DialTarget] = [:]
    /// The address each outbound connection was dialed at, by connection ID.
    var dialed: [Int: String] = [:]
    /// When each authenticated connection was authenticated (seconds since 1970), by connection ID.
    var since: [Int: Double] = [:]
    /// Whether a peer announced a new address that the other peers should hear of.
    var gossipWanted = false
    /// When (uptime, nanoseconds) the last round of gossip went out.
    var lastGossipRound: UInt64 = 0
}

/// One peer (or address) the node redials while it is not connected: exponential backoff with
/// jitter (`Backoff`), through its addresses in turn.
struct DialTarget {
    /// What is dialed: a known peer, or an address no peer has answered at yet.
    enum Key: Hashable {
        case peer(PeerKey)
        case address(String)
    }

    /// Failed attempts since the last connection that got through its handshake.
    var attempt = 0
    /// When (uptime, nanoseconds) the next attempt may start.
    var due: UInt64
    /// Which of the addresses the next attempt dials (round robin).
    var turn = 0
    /// Whether an attempt is under way (connecting, or its connection still open).
    var dialing = false
    /// Why the last attempt failed.
    var lastError: String?
}
