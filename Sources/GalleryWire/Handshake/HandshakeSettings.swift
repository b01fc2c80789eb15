import GalleryCrypto
import GalleryModel

/// What a node brings to a handshake: its identity, its static key, the space's secret, and its limits.
package struct HandshakeSettings: Sendable {
    /// The protocol versions this implementation speaks: 4 only (version 3's Noise handshake and
    /// sealed records, with signed ops). Version 3 is refused: its nodes send unsigned ops, which
    /// a version 4 node refuses as forged, so the two could only reconnect forever. Version 2
    /// (HMAC challenge, CRC-32 trailers, nothing encrypted) is refused with
    /// `unsupported_version` both ways, so that no one on the path can downgrade a link.
    package static let supportedVersions: [UInt16] = [4]

    /// The length of each Noise message, whose payloads are empty: 48 (-> e), 96 (<- e, ee, s, es)
    /// and 64 (-> s, se, psk) bytes (protocol.md section 4).
    package static let noiseMessageLengths = [48, 96, 64]

    /// Refuses a Noise message of another length than its place allows, with `protocol_error`,
    /// before any cryptography: a payload, even one that opens, is not part of the protocol.
    static func checkLength(of message: [UInt8], message index: Int) throws(HandshakeFailure) {
        guard index < noiseMessageLengths.count, message.count == noiseMessageLengths[index] else {
            throw HandshakeFailure(.protocolError,
                "Noise message \(index + 1) of \(message.count) bytes, not \(noiseMessageLengths[min(index, 2)])")
        }
    }

    /// The Noise protocol this version runs.
    package static let pattern = NoiseHandshakePattern.xxPSK3

    /// The space's shared secret, as kept in `DIR/secret`.
    package var secret: [UInt8]
    /// This node's static X25519 key: its identity.
    package var staticKey: X25519.PrivateKey
    /// This node's replica ID.
    package var replica: ReplicaID
    /// This node's name.
    package var name: String
    /// The versions offered (client) or accepted (server), ascending.
    package var versions: [UInt16]
    /// The largest frame payload this node accepts.
    package var maximumFrameSize: UInt32
    /// Draws the fresh ephemeral key of each handshake: the system's secure generator by default;
    /// the node's environment's random source in the deterministic mesh simulation.
    package var makeEphemeralKey: @Sendable () -> X25519.PrivateKey = { X25519.PrivateKey() }
    /// Whether records are sealed after the handshake: always, but for `gallery-bench transfer`'s
    /// unsealed baseline, which turns it off on both of its nodes (a node with it off cannot talk
    /// to any other: their tags never match).
    package var sealsRecords = true
    /// Where the pre-shared keys come from when they can change while the node runs (a new space
    /// key after a revocation, pending invitations: `Membership`); nil: `presharedKey` only.
    package var keyring: (any HandshakeKeyring)?

    /// The PSK a dial proves.
    package var dialingKey: [UInt8] { keyring?.dialingKey ?? presharedKey }

    package init(
        secret: [UInt8], staticKey: X25519.PrivateKey, replica: ReplicaID, name: String,
        versions: [UInt16] = supportedVersions, maximumFrameSize: UInt32 = FrameLimits.defaultMaximum
    ) {
        self.secret = secret
        self.staticKey = staticKey
        self.replica = replica
        // At most 255 bytes of UTF-8, cut between characters.
        var name = name
        while name.utf8.count > 255 { name.removeLast() }
        self.name = name
        self.versions = versions
        self.maximumFrameSize = min(max(maximumFrameSize, FrameLimits.minimum), FrameLimits.maximum)
    }

    /// This node's ID.
    package var nodeID: NodeID { NodeID(key: staticKey.publicKey) }

    /// The Noise pre-shared key: HKDF-SHA256(IKM = secret, salt = empty, info = "GallerySync noise
    /// psk v3", L = 32), so that the key Noise mixes in is uniform whatever the secret file holds.
    package var presharedKey: [UInt8] { Self.presharedKey(secret: secret) }

    /// The pre-shared key of a space whose secret is `secret`.
    package static func presharedKey(secret: [UInt8]) -> [UInt8] {
        // Cannot throw: 32 bytes is within HKDF's limit.
        try! HKDF.deriveKey(inputKeyMaterial: secret, salt: [], info: Array("GallerySync noise psk v3".utf8), byteCount: 32)
    }

    /// The Noise prologue: "GallerySync" (11 ASCII bytes), the version run (u16), then the client's
    /// `hello` frame exactly as sent (header and payload), so that a `hello` changed on the path
    /// (a version list rewritten to downgrade) fails the handshake.
    package static func prologue(version: UInt16, hello: Frame) -> [UInt8] {
        Array("GallerySync".utf8) + [UInt8(truncatingIfNeeded: version), UInt8(truncatingIfNeeded: version >> 8)] + hello.encoded
    }

    /// What this node says of itself in its `identity` frame.
    package func info(version: UInt16) -> PeerInfo {
        PeerInfo(version: version, replica: replica, maximumFrameSize: maximumFrameSize, name: name)
    }
}

/// The keys a node's handshakes may prove, read at each handshake (protocol.md, "Membership").
package protocol HandshakeKeyring: AnyObject, Sendable {
    /// The PSK this node's dials prove: its space's current secret's.
    var dialingKey: [UInt8] { get }
    /// The PSKs an accepted handshake may prove, in the order tried, the current space key first.
    var acceptedKeys: [(HandshakeAuthority, [UInt8])] { get }
}

/// What the PSK of a finished handshake was.
package enum HandshakeAuthority: Hashable, Sendable {
    /// The space's current secret.
    case space
    /// The space's previous secret (before the last revocation): only a member that missed the
    /// new key proves it; it is sent the new key and nothing else.
    case previousSpace
    /// A pending (or spent, or expired) invitation, by ID: the connection is a join.
    case invitation(String)
}

/// Who is at the other end of an authenticated connection.
package struct PeerIdentity: Hashable, Sendable {
    /// The peer's replica ID.
    package var replica: ReplicaID
    /// The peer's node name.
    package var name: String
    /// The protocol version both sides use.
    package var version: UInt16
    /// The largest frame payload the peer accepts: what this node may send.
    package var maximumFrameSize: UInt32
    /// The peer's static public key, proved by the handshake.
    package var key: X25519.PublicKey
    /// The peer's node ID (a digest of `key`).
    package var nodeID: NodeID

    /// What the handshake's PSK was.
    package var authority = HandshakeAuthority.space

    /// "name (node ID)": how logs name the peer.
    package var label: String { "\(name) (node \(nodeID))" }

    package init(replica: ReplicaID, name: String, version: UInt16, maximumFrameSize: UInt32, key: X25519.PublicKey) {
        self.replica = replica
        self.name = name
        self.version = version
        self.maximumFrameSize = min(max(maximumFrameSize, FrameLimits.minimum), FrameLimits.maximum)
        self.key = key
        self.nodeID = NodeID(key: key)
    }
}

/// Why a handshake failed: the code and reason to send in an `error` frame before closing.
package struct HandshakeFailure: Error, Hashable, Sendable {
    package var code: ErrorCode
    package var reason: String

    package init(_ code: ErrorCode, _ reason: String) {
        self.code = code
        self.reason = reason
    }
}
