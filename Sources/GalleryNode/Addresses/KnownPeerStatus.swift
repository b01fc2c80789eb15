/// One entry of `peers`: a peer of the address book, connected or not, or an address given by
/// the user that no peer has answered at yet (`key` nil).
public struct KnownPeerStatus: Hashable, Sendable {
    /// The key the book knows it by; nil for an address no peer has answered at yet.
    public var key: String?
    /// Its node name.
    public var name: String?
    /// Its replica ID (hex), as last reported.
    public var replica: String?
    /// When its current connection authenticated (seconds since 1970); nil when not connected.
    public var connectedSince: Double?
    /// When it was last connected (seconds since 1970).
    public var lastSeen: Double?
    /// Where it listens, most recently seen first, with where each address came from.
    public var addresses: [KnownAddress]
    /// Seconds until the next attempt to dial it; nil while connected or while an attempt runs.
    public var nextRetry: Double?
    /// Why the last attempt failed.
    public var lastError: String?
}
