import Foundation
import GalleryModel
import GalleryWire

/// What the command line asks of membership: `invite`, `members`, `revoke` (protocol.md,
/// "Membership").
extension SyncNode {
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

    /// Makes an invitation valid for `seconds` and returns its code (`gallery invite`).
    package func invite(seconds: UInt64) throws(MembershipFailure) -> InvitationCode {
        guard let membership = configuration.membership else { throw .noMembership }
        let announced = configuration.announce ?? endpoint.map { [$0] } ?? []
        let addresses = announced.prefix(InvitationCode.maximumAddresses).map { endpoint in
            WireAddress(host: ["0.0.0.0", "::", ""].contains(endpoint.host) ? ProcessInfo.processInfo.hostName : endpoint.host,
                        port: endpoint.port)
        }
        guard !addresses.isEmpty else { throw .notListening }
        let now = Timestamp.now
        let invitation: PendingInvitation
        do {
            invitation = try membership.invite(seconds: seconds, now: now)
        } catch {
            throw .storage("\(error)")
        }
        configuration.log("\(configuration.name): invitation \(invitation.id) made, valid until \(Timestamp.text(invitation.expires))")
        return InvitationCode(
            secret: invitation.secret, inviterKey: membership.nodeKey, space: membership.keys.space,
            expires: UInt32(clamping: invitation.expires / 1_000), addresses: addresses)
    }

    /// The members (`gallery members`).
    package func members() throws(MembershipFailure) -> [MemberListing] {
        guard let membership = configuration.membership else { throw .noMembership }
        return membership.listing
    }

    /// Revokes the member named `target` (a node ID or a name): its `revoked` record, with the
    /// last counter of each of its replicas applied here, goes to every member; the space gets a
    /// new key, sent to every member in session (and by them on); its connections close.
    package func revoke(_ target: String) throws(MembershipFailure) -> MemberListing {
        guard let membership = configuration.membership else { throw .noMembership }
        let result: Result<MemberListing, MembershipFailure> = loop.sync {
            let added = membership.records.filter { $0.kind == .added }
            var matches = added.filter { $0.nodeID?.rawValue == target }
            if matches.isEmpty { matches = added.filter { $0.name == target } }
            let distinct = Set(matches.map(\.nodeKey))
            guard let subject = matches.first else { return .failure(.unknownMember(target)) }
            guard distinct.count == 1 else { return .failure(.ambiguous(target)) }
            guard subject.nodeKey != membership.nodeKey else { return .failure(.revokingItself) }
            guard !membership.isRevoked(nodeKey: subject.nodeKey) else { return .failure(.alreadyRevoked(target)) }
            let record = membership.revoke(subject, cutoffs: cutoffs(ofSigningKey: subject.signingKey), now: Timestamp.now)
            do {
                let keys = try membership.rotate()
                configuration.log("\(configuration.name): REVOKED \(subject.name) [\(subject.nodeID?.rawValue ?? "?")]; the space key is now of generation \(keys.generation)")
            } catch {
                return .failure(.storage("\(error)"))
            }
            membershipChanged([record], except: nil)
            sendSpaceKey(except: nil)
            let entry = membership.listing.first { $0.nodeID == subject.nodeID?.rawValue }
            return entry.map { .success($0) } ?? .failure(.unknownMember(target))
        }
        return try result.get()
    }

    /// The replicas bound to `key` with the last counter applied here. On the loop.
    private func cutoffs(ofSigningKey key: [UInt8]) -> [ReplicaID: UInt64] {
        var cutoffs: [ReplicaID: UInt64] = [:]
        for (replicaID, counter) in replica.version.counters where self.key(of: replicaID, op: nil) == key {
            cutoffs[replicaID] = counter
        }
        return cutoffs
    }

    /// The signing key `replicaID`'s ops are bound to, from `op` when it is the replica's first,
    /// else from the replica's first op applied here. On the loop.
    func key(of replicaID: ReplicaID, op: Op?) -> [UInt8]? {
        if let op, op.previous == 0 { return op.seal?.keyClaim?.publicKey }
        if let signatures = replica.authenticator as? OpSignatures, let head = signatures.heads[replicaID], let key = head.key {
            return key.rawRepresentation
        }
        return replica.firstOp(of: replicaID)?.seal?.keyClaim?.publicKey
    }

    /// `ops` without those a revoked node made after its revocation: ops of a replica bound to a
    /// revoked key past the revocation's cut-off (every op of a replica it did not list). They
    /// are dropped and logged; the connection stays (a member may pass one on before it learns of
    /// the revocation). On the loop.
    func withoutRevokedAuthors(_ ops: [Op], from connection: Connection) -> [Op] {
        guard let membership = configuration.membership, membership.hasRevocations else { return ops }
        var cutoffsByReplica: [ReplicaID: [ReplicaID: UInt64]?] = [:]
        var refused = 0
        let kept = ops.filter { op in
            let replicaID = op.id.replica
            let cutoffs: [ReplicaID: UInt64]?
            if let known = cutoffsByReplica[replicaID] {
                cutoffs = known
            } else {
                cutoffs = key(of: replicaID, op: op).flatMap { membership.cutoffs(ofSigningKey: $0) }
                cutoffsByReplica[replicaID] = .some(cutoffs)
            }
            guard let cutoffs, op.id.counter > cutoffs[replicaID] ?? 0 else { return true }
            refused += 1
            return false
        }
        if refused > 0 {
            throttledLog("revoked-ops", "\(configuration.name): refused \(refused) ops of a revoked member from \(connection.peer?.label ?? connection.remote)")
        }
        return kept
    }
}
