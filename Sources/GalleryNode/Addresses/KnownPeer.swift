/// One peer in the address book: who it is, where it listens, when it was last seen.
public struct KnownPeer: Codable, Hashable, Sendable {
    /// The key the book knows it by (`PeerKey`).
    public var key: PeerKey
    /// Its node name as last reported.
    public var name: String
    /// Its replica ID (hex) as last reported.
    public var replica: String?
    /// When it was last connected (seconds since 1970; "now" while connected).
    public var lastSeen: Double
    /// Where it listens, most recently seen first.
    public var addresses: [KnownAddress]

    public init(key: PeerKey, name: String, replica: String?, lastSeen: Double, addresses: [KnownAddress]) {
        self.key = key
        self.name = name
        self.replica = replica
        self.lastSeen = lastSeen
        self.addresses = addresses
    }
}

/// One address in the address book, with where it came from and when it last held.
public struct KnownAddress: Codable, Hashable, Sendable {
    /// `HOST:PORT`.
    public var address: String
    /// How the book learned it (the most trusted source, when several told it).
    public var source: AddressSource
    /// When it was last known to hold (seconds since 1970).
    public var lastSeen: Double

    public init(address: String, source: AddressSource, lastSeen: Double) {
        self.address = address
        self.source = source
        self.lastSeen = lastSeen
    }
}
