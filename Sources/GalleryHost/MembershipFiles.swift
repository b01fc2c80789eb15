import Foundation
import GalleryCrypto
import GalleryModel
import GalleryNode
import GalleryStorage
import GalleryWire

/// A node's membership on disk (protocol.md, "Membership"), every file mode 0600, written whole
/// through a temporary file and a rename:
/// - `DIR/secret`: the space's current secret, raw (as before membership existed);
/// - `DIR/space`: `GSSP`, format 1, the space ID (16 bytes), the secret's generation (u64), the
///   previous secret (u16 length, bytes; 0: none), CRC-32 of all before it (u32);
/// - `DIR/members`: `GSMB`, format 1, the payload of a `membership` records frame, CRC-32;
/// - `DIR/invitations`: `GSIN`, format 1, count (u16), per invitation the one-time secret (16),
///   created and expires (u64 ms), used by (string, empty: unused), used at (u64), CRC-32.
struct MembershipFiles: MembershipStore {
    let directory: URL

    private var files: NodeDirectory { NodeDirectory(url: directory) }
    var secretFile: URL { directory.appendingPathComponent("secret") }
    var spaceFile: URL { directory.appendingPathComponent("space") }
    var membersFile: URL { directory.appendingPathComponent("members") }
    var invitationsFile: URL { directory.appendingPathComponent("invitations") }

    func save(keys: SpaceKeys) throws {
        var writer = ByteWriter()
        writer.append(Array("GSSP".utf8))
        writer.byte(1)
        writer.append(keys.space)
        writer.fixed64(keys.generation)
        let previous = keys.previous ?? []
        writer.fixed16(UInt16(clamping: previous.count))
        writer.append(previous.prefix(Int(UInt16.max)))
        try files.writeAtomically(Self.sealed(writer.bytes), to: spaceFile)
        try files.writeAtomically(keys.secret, to: secretFile)
    }

    func save(records: [MemberRecord]) throws {
        try files.writeAtomically(Self.sealed(Array("GSMB".utf8) + [1] + Message.membership(.records(records)).frame.payload), to: membersFile)
    }

    func save(invitations: [PendingInvitation]) throws {
        var writer = ByteWriter()
        writer.append(Array("GSIN".utf8))
        writer.byte(1)
        writer.fixed16(UInt16(clamping: invitations.count))
        for invitation in invitations.prefix(Int(UInt16.max)) {
            writer.append(invitation.secret)
            writer.fixed64(invitation.created)
            writer.fixed64(invitation.expires)
            writer.string(invitation.usedBy ?? "")
            writer.fixed64(invitation.usedAt ?? 0)
        }
        try files.writeAtomically(Self.sealed(writer.bytes), to: invitationsFile)
    }

    /// The keys: from `DIR/space` when it exists, else the first generation of `secret` (a space
    /// made before membership, or a new one), which is then written.
    func loadKeys(secret: [UInt8]) throws -> SpaceKeys {
        guard let data = FileManager.default.contents(atPath: spaceFile.path) else {
            let keys = SpaceKeys(secret: secret, generation: 0, previous: nil, space: OpSigning.spaceID(ofSecret: secret))
            try save(keys: keys)
            return keys
        }
        guard var reader = Self.opened(Array(data), magic: "GSSP") else { throw ServerError.secret("\(spaceFile.path) is damaged") }
        do {
            let space = Array(try reader.bytes(16))
            let generation = try reader.fixed64()
            let length = Int(try reader.fixed16())
            let previous = length == 0 ? nil : Array(try reader.bytes(length))
            return SpaceKeys(secret: secret, generation: generation, previous: previous, space: space)
        } catch {
            throw ServerError.secret("\(spaceFile.path) is damaged: \(error)")
        }
    }

    /// The records kept; none when the file is absent or damaged (they come back from peers).
    func loadRecords() -> [MemberRecord] {
        guard let data = FileManager.default.contents(atPath: membersFile.path),
              let reader = Self.opened(Array(data), magic: "GSMB"),
              case .membership(.records(let records))? = try? Message(frame: Frame(.membership, payload: Array(reader.rest)))
        else { return [] }
        return records
    }

    /// The invitations kept; none when the file is absent or damaged.
    func loadInvitations() -> [PendingInvitation] {
        guard let data = FileManager.default.contents(atPath: invitationsFile.path),
              var reader = Self.opened(Array(data), magic: "GSIN") else { return [] }
        var invitations: [PendingInvitation] = []
        do {
            let count = Int(try reader.fixed16())
            for _ in 0..<count {
                let secret = Array(try reader.bytes(InvitationCode.secretLength))
                let created = try reader.fixed64()
                let expires = try reader.fixed64()
                let usedBy = try reader.string(limit: 64)
                let usedAt = try reader.fixed64()
                invitations.append(PendingInvitation(secret: secret, created: created, expires: expires,
                                                     usedBy: usedBy.isEmpty ? nil : usedBy, usedAt: usedBy.isEmpty ? nil : usedAt))
            }
        } catch {
            return []
        }
        return invitations
    }

    private static func sealed(_ bytes: [UInt8]) -> [UInt8] {
        let crc = CRC32.checksum(bytes)
        return bytes + (0..<4).map { UInt8(truncatingIfNeeded: crc >> (8 * $0)) }
    }

    /// A reader after the magic and format 1, when the checksum holds.
    private static func opened(_ bytes: [UInt8], magic: String) -> ByteReader? {
        guard bytes.count >= 9 else { return nil }
        let body = Array(bytes.dropLast(4))
        let stored = bytes.suffix(4).enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << (8 * UInt32($1.offset)) }
        guard CRC32.checksum(body) == stored, Array(body.prefix(4)) == Array(magic.utf8), body[4] == 1 else { return nil }
        return ByteReader(body, offset: 5)
    }
}

extension ByteReader {
    /// The bytes not read yet.
    fileprivate var rest: ArraySlice<UInt8> {
        var copy = self
        return (try? copy.bytes(copy.remaining)) ?? []
    }
}
