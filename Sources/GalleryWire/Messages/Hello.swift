import GalleryModel

/// The client's first frame: who it is and which protocol versions it speaks.
public struct Hello: Hashable, Sendable {
    /// The four magic bytes that open a GallerySync connection: "GSYN".
    public static let magic: [UInt8] = Array("GSYN".utf8)

    /// Supported protocol versions, ascending, 1 to 16 of them.
    public var versions: [UInt16]
    /// The client's replica ID.
    public var replica: ReplicaID
    /// 32 random bytes, fresh for every connection.
    public var nonce: [UInt8]
    /// The largest frame payload the client accepts.
    public var maximumFrameSize: UInt32
    /// The client's node name (at most 255 bytes of UTF-8).
    public var name: String

    public init(versions: [UInt16], replica: ReplicaID, nonce: [UInt8], maximumFrameSize: UInt32, name: String) {
        self.versions = versions
        self.replica = replica
        self.nonce = nonce
        self.maximumFrameSize = maximumFrameSize
        self.name = name
    }
}

/// The server's answer to `Hello`: the version it selected and who it is.
public struct Welcome: Hashable, Sendable {
    /// The selected protocol version: the highest both sides support.
    public var version: UInt16
    /// The server's replica ID.
    public var replica: ReplicaID
    /// 32 random bytes, fresh for every connection.
    public var nonce: [UInt8]
    /// The largest frame payload the server accepts.
    public var maximumFrameSize: UInt32
    /// The server's node name.
    public var name: String

    public init(version: UInt16, replica: ReplicaID, nonce: [UInt8], maximumFrameSize: UInt32, name: String) {
        self.version = version
        self.replica = replica
        self.nonce = nonce
        self.maximumFrameSize = maximumFrameSize
        self.name = name
    }
}
