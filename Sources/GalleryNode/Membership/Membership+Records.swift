import GalleryCrypto
import GalleryModel
import GalleryWire

/// The member records (protocol.md, "Membership"): a grow-only set of signed `added` and
/// `revoked` records, merged from every member; who is a member follows from it.
extension Membership {
    /// Every record held.
    package var records: [MemberRecord] { recordsNow }

    /// Adds the records of `incoming` that hold (signature, and a signer that is a member or the
    /// subject registering itself) and are new; returns those added, saved first.
    @discardableResult
    package func merge(_ incoming: [MemberRecord], saving: Bool = true) -> [MemberRecord] {
        let (added, all) = withRecords { records -> ([MemberRecord], [MemberRecord]) in
            var added: [MemberRecord] = []
            var pending = incoming.filter { record in !records.contains(record) }
            // A record signed by a member added in the same batch is taken once that member is.
            var progress = true
            while progress && !pending.isEmpty {
                progress = false
                for record in pending where Self.accepts(record, given: records) && !records.contains(record) {
                    records.append(record)
                    added.append(record)
                    progress = true
                }
                pending.removeAll { records.contains($0) }
            }
            return (added, records)
        }
        if saving, !added.isEmpty { try? storeRecords(all) }
        return added
    }

    /// Whether `record` may join `records`: its signature holds, and its signer is the subject
    /// itself (an `added` record a node makes of itself: a founder, or a node that joined with a
    /// copied secret file) or a member `records` added and did not revoke.
    static func accepts(_ record: MemberRecord, given records: [MemberRecord]) -> Bool {
        guard record.nodeKey.count == 32, record.signingKey.count == 32, record.signatureHolds else { return false }
        if record.kind == .added && record.signer == record.signingKey { return true }
        let signerIsMember = records.contains { $0.kind == .added && $0.signingKey == record.signer }
        let signerRevoked = records.contains { $0.kind == .revoked && $0.signingKey == record.signer }
        return signerIsMember && !signerRevoked
    }

    /// Whether the node with static key `key` was revoked.
    package func isRevoked(nodeKey key: [UInt8]) -> Bool {
        recordsNow.contains { $0.kind == .revoked && $0.nodeKey == key }
    }

    /// Whether the node with static key `key` is a member: added, not revoked.
    package func isMember(nodeKey key: [UInt8]) -> Bool {
        let records = recordsNow
        return records.contains { $0.kind == .added && $0.nodeKey == key } && !records.contains { $0.kind == .revoked && $0.nodeKey == key }
    }

    /// Whether any member was revoked (the op filter's fast path).
    package var hasRevocations: Bool { recordsNow.contains { $0.kind == .revoked } }

    /// For a revoked signing key, the last counter accepted per replica (a replica not listed:
    /// none); nil for a key not revoked. Of two revocations of one key, the later cut-off counts.
    package func cutoffs(ofSigningKey key: [UInt8]) -> [ReplicaID: UInt64]? {
        let revocations = recordsNow.filter { $0.kind == .revoked && $0.signingKey == key }
        guard !revocations.isEmpty else { return nil }
        return revocations.reduce(into: [:]) { merged, record in merged.merge(record.cutoffs) { max($0, $1) } }
    }

    /// Adds this node's own `added` record when no record adds it (a founder, or a node that
    /// joined with a copied secret file, or one made before membership records).
    package func registerSelf(name: String, now: UInt64) {
        guard !recordsNow.contains(where: { $0.kind == .added && $0.nodeKey == nodeKey }) else { return }
        let record = MemberRecord(kind: .added, nodeKey: nodeKey, signingKey: signingKey.publicKey.rawRepresentation, name: name, at: now)
        merge([record.signed(by: signingKey)])
    }

    /// The `added` record for a newcomer whose static key is `key` and signing key `signing`.
    func admit(nodeKey key: [UInt8], signingKey signing: [UInt8], name: String, now: UInt64) -> MemberRecord {
        let record = MemberRecord(kind: .added, nodeKey: key, signingKey: signing, name: name, at: now).signed(by: signingKey)
        merge([record])
        return record
    }

    /// The `revoked` record of `member`, with `cutoffs`, signed by this node.
    func revoke(_ member: MemberRecord, cutoffs: [ReplicaID: UInt64], now: UInt64) -> MemberRecord {
        let record = MemberRecord(kind: .revoked, nodeKey: member.nodeKey, signingKey: member.signingKey,
                                  name: member.name, at: now, cutoffs: cutoffs).signed(by: signingKey)
        merge([record])
        return record
    }

    /// The members as `gallery members` lists them: one entry per node added, oldest first.
    package var listing: [MemberListing] {
        let records = recordsNow
        let added = records.filter { $0.kind == .added }
        var seen = Set<[UInt8]>()
        var listing: [MemberListing] = []
        for record in added.sorted(by: { $0.at < $1.at }) where seen.insert(record.nodeKey).inserted {
            let signer = added.first { $0.signingKey == record.signer }
            let revocation = records.filter { $0.kind == .revoked && $0.nodeKey == record.nodeKey }.min { $0.at < $1.at }
            let revoker = revocation.flatMap { revocation in added.first { $0.signingKey == revocation.signer } }
            listing.append(MemberListing(
                nodeID: record.nodeID?.rawValue ?? "?", name: record.name, added: record.at,
                addedBy: record.signer == record.signingKey ? "itself" : signer.map { "\($0.name) [\($0.nodeID?.rawValue ?? "?")]" } ?? "?",
                revoked: revocation?.at,
                revokedBy: revoker.map { "\($0.name) [\($0.nodeID?.rawValue ?? "?")]" },
                isSelf: record.nodeKey == nodeKey))
        }
        return listing
    }
}
