import GalleryModel

/// What a node brings to a handshake: its identity, the space's secret, and its limits.
public struct HandshakeSettings: Sendable {
    /// The protocol versions this implementation speaks: 2 only (every frame after the handshake
    /// carries a CRC-32 trailer). Version 1 (no trailer) is refused with `unsupported_version`, so
    /// that no one on the path can downgrade a link to unchecked frames.
    public static let supportedVersions: [UInt16] = [2]

    /// The space's shared secret: the HMAC key.
    public var secret: [UInt8]
    /// This node's replica ID.
    public var replica: ReplicaID
    /// This node's name.
    public var name: String
    /// The versions offered (client) or accepted (server), ascending.
    public var versions: [UInt16]
    /// The largest frame payload this node accepts.
    public var maximumFrameSize: UInt32

    public init(
        secret: [UInt8], replica: ReplicaID, name: String, versions: [UInt16] = supportedVersions,
        maximumFrameSize: UInt32 = FrameLimits.defaultMaximum
    ) {
        self.secret = secret
        self.replica = replica
        // At most 255 bytes of UTF-8, cut between characters.
        var name = name
        while name.utf8.count > 255 { name.removeLast() }
        self.name = name
        self.versions = versions
        self.maximumFrameSize = min(max(maximumFrameSize, FrameLimits.minimum), FrameLimits.maximum)
    }

    /// 32 bytes from the system's secure random source.
    public static func makeNonce() -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<4).flatMap { _ in withUnsafeBytes(of: generator.next()) { Array($0) } }
    }
}

/// Who is at the other end of an authenticated connection.
public struct PeerIdentity: Hashable, Sendable {
    /// The peer's replica ID.
    public var replica: ReplicaID
    /// The peer's node name.
    public var name: String
    /// The protocol version both sides use.
    public var version: UInt16
    /// The largest frame payload the peer accepts: what this node may send.
    public var maximumFrameSize: UInt32
}

/// Why a handshake failed: the code and reason to send in an `error` frame before closing.
public struct HandshakeFailure: Error, Hashable, Sendable {
    public var code: ErrorCode
    public var reason: String

    public init(_ code: ErrorCode, _ reason: String) {
        self.code = code
        self.reason = reason
    }
}
