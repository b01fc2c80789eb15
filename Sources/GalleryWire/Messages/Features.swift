import GalleryModel

/// What a node accepts beyond the base protocol, sent once per connection in a `features` frame
/// (protocol.md, section 3): `bits:varint`. A node uses a feature towards a peer only once the
/// peer's `features` named it; a peer that sends none (or does not know the frame, which is
/// ignorable) gets the base protocol. Bits this version does not know are kept and ignored.
package struct Features: OptionSet, Hashable, Sendable {
    package let rawValue: UInt64

    package init(rawValue: UInt64) {
        self.rawValue = rawValue
    }

    /// Bit 0: "send me ops in `ops_compact` frames" (protocol.md, section 7, "Compact ops").
    package static let compactOps = Features(rawValue: 1 << 0)
    /// Bit 1: "I take 60 s of silence from you: send me a heartbeat only after 20 s without
    /// sending anything" (protocol.md, section 10, "Quiet liveness").
    package static let quietLiveness = Features(rawValue: 1 << 1)

    /// The payload: the bits as a varint.
    func write(into writer: inout ByteWriter) {
        writer.varint(rawValue)
    }

    /// Reads a payload written by `write`.
    static func read(from reader: inout ByteReader) throws(DecodingError) -> Features {
        Features(rawValue: try reader.varint())
    }
}
