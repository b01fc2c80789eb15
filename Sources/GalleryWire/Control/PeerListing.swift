/// One connected peer as `peers` prints it.
public struct PeerListing: Codable, Hashable, Sendable {
    /// The peer's node name, once its handshake is done.
    public var name: String?
    /// Its replica ID, in hex, once its handshake is done.
    public var replica: String?
    /// Its node ID (a digest of the static key it proved), once its handshake is done.
    public var nodeID: String?
    /// Its address, `HOST:PORT`.
    public var address: String
    /// `inbound` or `outbound`.
    public var direction: String
    /// Where the sync with it stands.
    public var state: String
    /// The peer's version vector at its `caught_up`: "synced with P up to V".
    public var syncedUpTo: [String: UInt64]?

    public init(name: String?, replica: String?, nodeID: String? = nil, address: String, direction: String, state: String,
                syncedUpTo: [String: UInt64]?) {
        self.name = name
        self.replica = replica
        self.nodeID = nodeID
        self.address = address
        self.direction = direction
        self.state = state
        self.syncedUpTo = syncedUpTo
    }
}
