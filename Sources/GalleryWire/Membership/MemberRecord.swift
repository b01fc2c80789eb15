import GalleryCrypto
import GalleryModel

/// One signed statement about the space's membership (protocol.md, "Membership"): a node was
/// added, or a node was revoked. Records form a grow-only set that every member holds and passes
/// on; a node is a member when a valid `added` record names it and no valid `revoked` one does.
///
/// Encoding: `kind:u8` (0 added, 1 revoked), the subject's static X25519 key (32), the subject's
/// Ed25519 signing key (32), `name:string` (at most 255 bytes), `at:u64` (milliseconds since
/// 1970), the signer's signing key (32), for `revoked` `count:varint` (at most 64) cut-offs
/// `replica:u64 counter:varint`, then the signature (64) over "GallerySync member v4" and every
/// byte before it.
package struct MemberRecord: Hashable, Sendable {
    /// What the record says.
    package enum Kind: UInt8, Sendable {
        case added = 0
        case revoked = 1
    }

    /// The most cut-offs one revocation lists.
    package static let maximumCutoffs = 64

    package var kind: Kind
    /// The subject's static key (its node ID's key).
    package var nodeKey: [UInt8]
    /// The subject's signing key: its ops' replicas are bound to it.
    package var signingKey: [UInt8]
    /// The subject's node name when added.
    package var name: String
    /// When the record was made, in milliseconds since 1970.
    package var at: UInt64
    /// The signing key of the member that made the record (the subject itself for a node that
    /// registered itself: a founder, or a node that joined with a copied secret file).
    package var signer: [UInt8]
    /// For `revoked`: per replica bound to the subject's key, the last counter accepted.
    package var cutoffs: [ReplicaID: UInt64]
    /// The signer's Ed25519 signature.
    package var signature: [UInt8]

    package init(kind: Kind, nodeKey: [UInt8], signingKey: [UInt8], name: String, at: UInt64, cutoffs: [ReplicaID: UInt64] = [:]) {
        self.kind = kind
        self.nodeKey = nodeKey
        self.signingKey = signingKey
        var name = name
        while name.utf8.count > 255 { name.removeLast() }
        self.name = name
        self.at = at
        self.signer = []
        self.cutoffs = cutoffs
        self.signature = []
    }

    /// The record signed by `key`.
    package func signed(by key: Ed25519.PrivateKey) -> MemberRecord {
        var record = self
        record.signer = key.publicKey.rawRepresentation
        record.signature = key.signature(for: record.signedBytes)
        return record
    }

    /// Whether the signature holds for the signer's key.
    package var signatureHolds: Bool {
        guard let key = try? Ed25519.PublicKey(rawRepresentation: signer) else { return false }
        return key.isValidSignature(signature, for: signedBytes)
    }

    /// The subject's node ID.
    package var nodeID: NodeID? {
        (try? X25519.PublicKey(rawRepresentation: nodeKey)).map { NodeID(key: $0) }
    }

    private var signedBytes: [UInt8] {
        var writer = ByteWriter()
        writer.append(Array("GallerySync member v4".utf8))
        writeBody(into: &writer)
        return writer.bytes
    }

    private func writeBody(into writer: inout ByteWriter) {
        writer.byte(kind.rawValue)
        writer.append(nodeKey)
        writer.append(signingKey)
        writer.string(name)
        writer.fixed64(at)
        writer.append(signer)
        if kind == .revoked {
            let sorted = cutoffs.sorted { $0.key < $1.key }.prefix(Self.maximumCutoffs)
            writer.varint(UInt64(sorted.count))
            for (replica, counter) in sorted {
                writer.fixed64(replica.rawValue)
                writer.varint(counter)
            }
        }
    }

    func write(into writer: inout ByteWriter) {
        writeBody(into: &writer)
        writer.append(signature)
    }

    static func read(from reader: inout ByteReader) throws(DecodingError) -> MemberRecord {
        guard let kind = Kind(rawValue: try reader.byte()) else { throw .invalidValue("member record kind") }
        let nodeKey = Array(try reader.bytes(32))
        let signingKey = Array(try reader.bytes(32))
        let name = try reader.string(limit: 255)
        let at = try reader.fixed64()
        var record = MemberRecord(kind: kind, nodeKey: nodeKey, signingKey: signingKey, name: name, at: at)
        record.signer = Array(try reader.bytes(32))
        if kind == .revoked {
            let count = try reader.varint()
            guard count <= UInt64(maximumCutoffs) else { throw .invalidValue("\(count) cut-offs") }
            for _ in 0..<Int(count) {
                record.cutoffs[ReplicaID(try reader.fixed64())] = try reader.varint()
            }
        }
        record.signature = Array(try reader.bytes(64))
        return record
    }
}
