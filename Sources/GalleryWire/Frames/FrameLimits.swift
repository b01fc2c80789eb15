/// Sizes that bound frames (protocol.md, "Frame layout").
package enum FrameLimits {
    /// Bytes of the frame header: length (u32), type (u8), flags (u8).
    package static let headerSize = 6
    /// The largest frame accepted before the handshake has declared the peer's limit.
    package static let handshakeMaximum = 4_096
    /// The smallest frame limit a node may declare.
    package static let minimum: UInt32 = 65_536
    /// The largest frame limit a node may declare.
    package static let maximum: UInt32 = 64 << 20
    /// The frame limit this implementation declares by default.
    package static let defaultMaximum: UInt32 = 4 << 20
}
