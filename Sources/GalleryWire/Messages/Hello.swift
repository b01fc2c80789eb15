import GalleryModel

/// The client's first frame, in the clear: the magic and the protocol versions it speaks.
///
/// The layout is version 2's (magic, versions, replica, nonce, max_frame, name), so that a node of
/// any version can read the version list and refuse with `unsupported_version`. From version 3 on
/// the fields after the versions are sent as zeros (replica 0, 32 zero bytes, max_frame 0, empty
/// name) and ignored: who the client is travels inside the sealed channel (`identity`).
package struct Hello: Hashable, Sendable {
    /// The four magic bytes that open a GallerySync connection: "GSYN".
    package static let magic: [UInt8] = Array("GSYN".utf8)

    /// Supported protocol versions, ascending, 1 to 16 of them.
    package var versions: [UInt16]
    /// Version 2: the client's replica ID. Version 3: 0.
    package var replica: ReplicaID
    /// Version 2: 32 random bytes. Version 3: 32 zero bytes.
    package var nonce: [UInt8]
    /// Version 2: the largest frame payload the client accepts. Version 3: 0.
    package var maximumFrameSize: UInt32
    /// Version 2: the client's node name. Version 3: empty.
    package var name: String

    package init(versions: [UInt16], replica: ReplicaID, nonce: [UInt8], maximumFrameSize: UInt32, name: String) {
        self.versions = versions
        self.replica = replica
        self.nonce = nonce
        self.maximumFrameSize = maximumFrameSize
        self.name = name
    }

    /// A version 3 hello offering `versions`: nothing but the versions.
    package init(versions: [UInt16]) {
        self.init(versions: versions, replica: ReplicaID(0), nonce: [UInt8](repeating: 0, count: 32),
                  maximumFrameSize: 0, name: "")
    }
}

/// What a node says of itself inside the sealed channel (`identity`, protocol.md "Handshake").
package struct PeerInfo: Hashable, Sendable {
    /// The protocol version the sender runs on this connection.
    package var version: UInt16
    /// The sender's replica ID.
    package var replica: ReplicaID
    /// The largest frame payload the sender accepts.
    package var maximumFrameSize: UInt32
    /// The sender's node name (at most 255 bytes of UTF-8).
    package var name: String

    package init(version: UInt16, replica: ReplicaID, maximumFrameSize: UInt32, name: String) {
        self.version = version
        self.replica = replica
        self.maximumFrameSize = maximumFrameSize
        self.name = name
    }
}
