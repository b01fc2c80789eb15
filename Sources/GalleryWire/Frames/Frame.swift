/// One frame: a 6-byte header (payload length u32 little-endian, type, flags) and a payload.
package struct Frame: Hashable, Sendable {
    /// Flag bit 0: a receiver that does not know the type skips the frame instead of failing.
    package static let ignorableFlag: UInt8 = 0x01

    /// The raw type byte (see `FrameType`; unknown values are kept as they are).
    package var type: UInt8
    /// The flag bits; only `ignorableFlag` is defined, the others must be 0.
    package var flags: UInt8
    /// The payload.
    package var payload: [UInt8]

    /// Creates a frame of a known type.
    package init(_ type: FrameType, flags: UInt8 = 0, payload: [UInt8] = []) {
        self.init(rawType: type.rawValue, flags: flags, payload: payload)
    }

    /// Creates a frame with any type byte.
    package init(rawType: UInt8, flags: UInt8, payload: [UInt8]) {
        self.type = rawType
        self.flags = flags
        self.payload = payload
    }

    /// The known type, if any.
    package var knownType: FrameType? { FrameType(rawValue: type) }

    /// Header and payload as sent.
    package var encoded: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(FrameLimits.headerSize + payload.count)
        let length = UInt32(payload.count)
        bytes += [UInt8(truncatingIfNeeded: length), UInt8(truncatingIfNeeded: length >> 8),
                  UInt8(truncatingIfNeeded: length >> 16), UInt8(truncatingIfNeeded: length >> 24), type, flags]
        bytes += payload
        return bytes
    }

    /// Size on the wire.
    package var encodedSize: Int { FrameLimits.headerSize + payload.count }
}
