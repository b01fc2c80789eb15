/// What a node knows of its peers' addresses and its redials: owned by the node's loop.
struct AddressState {
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
}
