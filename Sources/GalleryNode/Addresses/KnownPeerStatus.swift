/// One entry of `peers`: a peer of the address book, connected or not, or an address given by
/// the user that no peer has answered at yet (`key` nil).
package struct KnownPeerStatus: Hashable, Sendable {
    /// The key the book knows it by; nil for an address no peer has answered at yet.
    package var key: String?
    /// Its node name.
    package var name: String?
    /// Its replica ID (hex), as last reported.
    package var replica: String?
    /// When its current connection authenticated (seconds since 1970); nil when not connected.
    package var connectedSince: Double?
    /// When it was last connected (seconds since 1970).
    package var lastSeen: Double?
    /// Where it listens, most recently seen first, with where each address came from.
    package var addresses: [KnownAddress]
    /// Seconds until the next attempt to dial it; nil while connected or while an attempt runs.
    package var nextRetry: Double?
    /// Why the last attempt failed.
    package var lastError: String?
}
