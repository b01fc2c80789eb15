import GalleryModel

/// The payload of a `membership` frame (type `0x41`, ignorable; protocol.md, "Membership"):
/// `kind:u8`, then the kind's fields.
package enum MembershipMessage: Hashable, Sendable {
    /// Kind 0: member records the sender holds (`count:varint`, at most 1,024, then each record).
    case records([MemberRecord])
    /// Kind 1, newcomer -> inviter on a join connection: the newcomer's signing key (32 bytes).
    case joinRequest(signingKey: [UInt8])
    /// Kind 2, inviter -> newcomer: the space's secret (`string` of bytes), its generation
    /// (`varint`), the space ID (16 bytes), then the member records as in kind 0.
    case joinGrant(secret: [UInt8], generation: UInt64, space: [UInt8], records: [MemberRecord])
    /// Kind 3, member -> member: the space's current secret and its generation (a revocation
    /// made a new one).
    case spaceKey(secret: [UInt8], generation: UInt64)

    /// The most records one frame carries.
    package static let maximumRecords = 1_024
    /// The longest secret carried.
    package static let maximumSecret = 1_024

    func write(into writer: inout ByteWriter) {
        switch self {
        case .records(let records):
            writer.byte(0)
            Self.write(records, into: &writer)
        case .joinRequest(let key):
            writer.byte(1)
            writer.append(key)
        case .joinGrant(let secret, let generation, let space, let records):
            writer.byte(2)
            writer.varint(UInt64(secret.count))
            writer.append(secret)
            writer.varint(generation)
            writer.append(space)
            Self.write(records, into: &writer)
        case .spaceKey(let secret, let generation):
            writer.byte(3)
            writer.varint(UInt64(secret.count))
            writer.append(secret)
            writer.varint(generation)
        }
    }

    static func read(from reader: inout ByteReader) throws(DecodingError) -> MembershipMessage {
        switch try reader.byte() {
        case 0: return .records(try records(&reader))
        case 1: return .joinRequest(signingKey: Array(try reader.bytes(32)))
        case 2:
            let secret = try secretBytes(&reader)
            let generation = try reader.varint()
            let space = Array(try reader.bytes(16))
            return .joinGrant(secret: secret, generation: generation, space: space, records: try records(&reader))
        case 3:
            let secret = try secretBytes(&reader)
            return .spaceKey(secret: secret, generation: try reader.varint())
        case let kind: throw .unknownTag("membership kind", kind)
        }
    }

    private static func secretBytes(_ reader: inout ByteReader) throws(DecodingError) -> [UInt8] {
        let count = try reader.varint()
        guard count >= 1, count <= UInt64(maximumSecret) else { throw .invalidValue("a secret of \(count) bytes") }
        return Array(try reader.bytes(Int(count)))
    }

    private static func write(_ records: [MemberRecord], into writer: inout ByteWriter) {
        let records = records.prefix(maximumRecords)
        writer.varint(UInt64(records.count))
        for record in records { record.write(into: &writer) }
    }

    private static func records(_ reader: inout ByteReader) throws(DecodingError) -> [MemberRecord] {
        let count = try reader.varint()
        guard count <= UInt64(maximumRecords) else { throw .invalidValue("\(count) member records") }
        var records: [MemberRecord] = []
        for _ in 0..<Int(count) { records.append(try MemberRecord.read(from: &reader)) }
        return records
    }
}
