import Foundation
import GalleryIO
import GalleryModel
import GalleryWire

/// Why a membership command was refused.
package enum MembershipFailure: Error, LocalizedError, Hashable, Sendable {
    case noMembership
    case notListening
    case unknownMember(String)
    case ambiguous(String)
    case revokingItself
    case alreadyRevoked(String)
    case storage(String)

    package var errorDescription: String? {
        switch self {
        case .noMembership: "this node keeps no membership (not a `gallery serve` node)"
        case .notListening: "this node listens nowhere: a newcomer could not reach it"
        case .unknownMember(let name): "no member \(name) (a node ID or name from `gallery members`)"
        case .ambiguous(let name): "several members are called \(name): name one by its node ID"
        case .revokingItself: "a node cannot revoke itself"
        case .alreadyRevoked(let name): "\(name) was revoked already"
        case .storage(let why): "cannot store the change: \(why)"
        }
    }
}

/// What the command line asks of membership (`invite`, `revoke`), and the revocation's hold on
/// ops: which replicas a member's signing key is bound to, and the ops a revoked member made
/// after its revocation.
extension MembershipExchange {
    /// Makes an invitation valid for `seconds` and returns its code, which names the addresses
    /// `announced` (an unspecified host as this machine's name).
    func invite(seconds: UInt64, announced: [Endpoint]) throws(MembershipFailure) -> InvitationCode {
        let addresses = announced.prefix(InvitationCode.maximumAddresses).map { endpoint in
            WireAddress(host: ["0.0.0.0", "::", ""].contains(endpoint.host) ? ProcessInfo.processInfo.hostName : endpoint.host,
                        port: endpoint.port)
        }
        guard !addresses.isEmpty else { throw .notListening }
        let invitation: PendingInvitation
        do {
            invitation = try membership.invite(seconds: seconds, now: Timestamp.now)
        } catch {
            throw .storage("\(error)")
        }
        log("\(node): invitation \(invitation.id) made, valid until \(Timestamp.text(invitation.expires))")
        return InvitationCode(
            secret: invitation.secret, inviterKey: membership.nodeKey, space: membership.keys.space,
            expires: UInt32(clamping: invitation.expires / 1_000), addresses: addresses)
    }

    /// Revokes the member named `target` (a node ID or a name): its `revoked` record carries the
    /// last counter applied here of each replica its key is bound to (`cutoffs`), and the space
    /// gets a new key. Returns the record (for the node to send, `Followup.revoked`) and the
    /// member's listing. On the node's loop.
    func revoke(_ target: String, cutoffs: ([UInt8]) -> [ReplicaID: UInt64]) -> Result<(record: MemberRecord, listing: MemberListing), MembershipFailure> {
        let added = membership.records.filter { $0.kind == .added }
        var matches = added.filter { $0.nodeID?.rawValue == target }
        if matches.isEmpty { matches = added.filter { $0.name == target } }
        guard let subject = matches.first else { return .failure(.unknownMember(target)) }
        guard Set(matches.map(\.nodeKey)).count == 1 else { return .failure(.ambiguous(target)) }
        guard subject.nodeKey != membership.nodeKey else { return .failure(.revokingItself) }
        guard !membership.isRevoked(nodeKey: subject.nodeKey) else { return .failure(.alreadyRevoked(target)) }
        let record = membership.revoke(subject, cutoffs: cutoffs(subject.signingKey), now: Timestamp.now)
        do {
            let keys = try membership.rotate()
            log("\(node): REVOKED \(subject.name) [\(subject.nodeID?.rawValue ?? "?")]; the space key is now of generation \(keys.generation)")
        } catch {
            return .failure(.storage("\(error)"))
        }
        guard let entry = membership.listing.first(where: { $0.nodeID == subject.nodeID?.rawValue }) else { return .failure(.unknownMember(target)) }
        return .success((record, entry))
    }

    /// The replicas of `replica` bound to the signing `key`, with the last counter applied there.
    static func cutoffs(ofSigningKey key: [UInt8], in replica: Replica) -> [ReplicaID: UInt64] {
        var cutoffs: [ReplicaID: UInt64] = [:]
        for (replicaID, counter) in replica.version.counters where signingKey(of: replicaID, op: nil, in: replica) == key {
            cutoffs[replicaID] = counter
        }
        return cutoffs
    }

    /// The signing key `replicaID`'s ops are bound to, from `op` when it is the replica's first,
    /// else from the replica's first op applied in `replica`.
    static func signingKey(of replicaID: ReplicaID, op: Op?, in replica: Replica) -> [UInt8]? {
        if let op, op.previous == 0 { return op.seal?.keyClaim?.publicKey }
        if let signatures = replica.authenticator as? OpSignatures, let head = signatures.heads[replicaID], let key = head.key {
            return key.rawRepresentation
        }
        return replica.firstOp(of: replicaID)?.seal?.keyClaim?.publicKey
    }

    /// `ops` without those a revoked node made after its revocation: ops of a replica bound to a
    /// revoked key past the revocation's cut-off (every op of a replica it did not list), and how
    /// many were dropped. The connection stays (a member may pass one on before it learns of the
    /// revocation). `replica` is the node's, read on its loop.
    func withoutRevokedAuthors(_ ops: [Op], in replica: Replica) -> (kept: [Op], refused: Int) {
        guard membership.hasRevocations else { return (ops, 0) }
        var cutoffsByReplica: [ReplicaID: [ReplicaID: UInt64]?] = [:]
        var refused = 0
        let kept = ops.filter { op in
            let replicaID = op.id.replica
            let cutoffs: [ReplicaID: UInt64]?
            if let known = cutoffsByReplica[replicaID] {
                cutoffs = known
            } else {
                cutoffs = Self.signingKey(of: replicaID, op: op, in: replica).flatMap { membership.cutoffs(ofSigningKey: $0) }
                cutoffsByReplica[replicaID] = .some(cutoffs)
            }
            guard let cutoffs, op.id.counter > cutoffs[replicaID] ?? 0 else { return true }
            refused += 1
            return false
        }
        return (kept, refused)
    }
}
