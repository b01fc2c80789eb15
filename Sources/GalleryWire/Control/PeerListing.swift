/// One peer as `peers` and `status` print it: a connection, and for `peers` also every peer of
/// the address book that is not connected (`state` "disconnected") and every address given that
/// no peer has answered at yet (`name` nil, `state` "disconnected").
package struct PeerListing: Codable, Hashable, Sendable {
    /// The peer's node name, once its handshake is done.
    package var name: String?
    /// Its replica ID, in hex, once its handshake is done.
    package var replica: String?
    /// Its node ID (a digest of the static key it proved), once its handshake is done.
    package var nodeID: String?
    /// Its address, `HOST:PORT`: the connection's remote address, or the first address known.
    package var address: String
    /// `inbound` or `outbound`; `-` when not connected.
    package var direction: String
    /// Where the sync with it stands: `handshaking`, `syncing`, `live`, or `disconnected`.
    package var state: String
    /// The peer's version vector at its `caught_up`: "synced with P up to V".
    package var syncedUpTo: [String: UInt64]?
    /// Since when it is connected (seconds since 1970), for `peers`.
    package var since: Double?
    /// When it was last connected (seconds since 1970), for `peers`.
    package var lastSeen: Double?
    /// Where it listens, as the address book knows it, for `peers`.
    package var addresses: [Address]?
    /// Seconds until the node dials it again, when it is not connected.
    package var nextRetry: Double?
    /// Why the last attempt to dial it failed.
    package var lastError: String?
    /// The link in the relay tree: `parent`, `child`, `eager`, `grafted` or `lazy` (protocol.md,
    /// section 11; `PeerStatus.relay`).
    package var relay: String?

    /// One address of the address book.
    package struct Address: Codable, Hashable, Sendable {
        /// `HOST:PORT`.
        package var address: String
        /// Where the book learned it: `--peer`, `connect`, `announce`, `gossip`.
        package var source: String
        /// When it last held (seconds since 1970).
        package var lastSeen: Double

        package init(address: String, source: String, lastSeen: Double) {
            self.address = address
            self.source = source
            self.lastSeen = lastSeen
        }
    }

    package init(name: String?, replica: String?, nodeID: String? = nil, address: String, direction: String, state: String,
                syncedUpTo: [String: UInt64]?, since: Double? = nil, lastSeen: Double? = nil, addresses: [Address]? = nil,
                nextRetry: Double? = nil, lastError: String? = nil, relay: String? = nil) {
        self.name = name
        self.replica = replica
        self.nodeID = nodeID
        self.address = address
        self.direction = direction
        self.state = state
        self.syncedUpTo = syncedUpTo
        self.since = since
        self.lastSeen = lastSeen
        self.addresses = addresses
        self.nextRetry = nextRetry
        self.lastError = lastError
        self.relay = relay
    }
}
