/// One peer in the address book: who it is, where it listens, when it was last seen.
package struct KnownPeer: Codable, Hashable, Sendable {
    /// The key the book knows it by (`PeerKey`).
    package var key: PeerKey
    /// Its node name as last reported.
    package var name: String
    /// Its replica ID (hex) as last reported.
    package var replica: String?
    /// When it was last connected (seconds since 1970; "now" while connected).
    package var lastSeen: Double
    /// Where it listens, most recently seen first.
    package var addresses: [KnownAddress]

    package init(key: PeerKey, name: String, replica: String?, lastSeen: Double, addresses: [KnownAddress]) {
        self.key = key
        self.name = name
        self.replica = replica
        self.lastSeen = lastSeen
        self.addresses = addresses
    }
}

/// One address in the address book, with where it came from and when it last held.
package struct KnownAddress: Codable, Hashable, Sendable {
    /// `HOST:PORT`.
    package var address: String
    /// How the book learned it (the most trusted source, when several told it).
    package var source: AddressSource
    /// When it was last known to hold (seconds since 1970).
    package var lastSeen: Double

    package init(address: String, source: AddressSource, lastSeen: Double) {
        self.address = address
        self.source = source
        self.lastSeen = lastSeen
    }
}
