import GalleryModel
import GalleryWire

/// Signed ops at the node (protocol.md, "Signed ops"): the replica seals this node's ops and
/// admits a peer's only when its author signed it; a forged op closes the connection that
/// brought it with `forged_op`, wherever it came from (live, a catch-up, a relay).
extension SyncNode {
    /// `replica` with `OpSignatures` installed when the configuration signs ops.
    package static func signing(_ replica: Replica, _ configuration: NodeConfiguration) -> Replica {
        guard let salt = configuration.replicaSalt else { return replica }
        var signatures = OpSignatures(
            space: configuration.space,
            signingKey: OpSigning.signingKey(fromNodeKey: configuration.staticKey), salt: salt)
        precondition(signatures.replicaID == replica.id, "the replica ID is not the one bound to the node's key")
        signatures.loadHead(of: replica.id, from: replica)
        signatures.unsignedReplicas = Set(replica.version.counters.keys.filter { replica.firstOp(of: $0)?.seal?.keyClaim == nil })
        var signed = replica
        signed.authenticator = signatures
        return signed
    }

    /// An empty replica for a node that signs its ops: under the replica ID bound to its key and
    /// salt (`configuration.replicaSalt`, which must be set), sealing what it makes.
    package static func signedReplica(for configuration: NodeConfiguration) -> Replica {
        precondition(configuration.replicaSalt != nil, "a signed replica needs a salt")
        let binding = ReplicaBinding(space: configuration.space, nodeKey: configuration.staticKey)
        return signing(Replica(id: binding.replicaID(salt: configuration.replicaSalt ?? 0)), configuration)
    }

    /// The ops of a frame from `connection` that may go to the replica now (those whose
    /// signature is checked, or will be when their predecessor arrives). When one is forged the
    /// connection is closed, and what its author's signatures cover before it is all that is
    /// given back. `steps`: their chain hashes made off the loop (`FrameChainHasher`). On the loop.
    func checkSignatures(_ ops: [Op], steps: [ChainStep?] = [], from connection: Connection) -> [Op] {
        guard var signatures = replica.authenticator as? OpSignatures else { return ops }
        replica.authenticator = nil
        let checked = signatures.check(frame: ops, from: connection.id, state: replica, steps: steps)
        replica.authenticator = signatures
        if let (op, reason) = checked.forged { reportForgedOp(op.id, reason: reason, on: [connection]) }
        return checked.ops
    }

    /// Reports the held ops the replica refused as forged when their predecessors arrived, and
    /// closes the connections that sent them. On the loop.
    func reportForgedHeldOps() {
        for forged in replica.takeForgedHeldOps() {
            guard case .forgedOp(let id, let reason) = forged.error else { continue }
            reportForgedOp(id, reason: reason, on: forged.sources.compactMap { connections[$0] })
        }
    }

    /// Logs a forged op and closes the connections that sent it with `forged_op`.
    func reportForgedOp(_ id: OpID, reason: String, on senders: [Connection]) {
        for connection in senders {
            configuration.log("\(configuration.name): FORGED OP \(id) from \(connection.peer?.label ?? connection.remote): "
                + "\(reason); refused, connection closed")
            connection.close(.forgedOp, "op \(id) is not signed by its replica's key: \(reason)")
        }
    }

    /// `version` with the ops of replicas that sign nothing counted as held: a catch-up never
    /// sends them (ops this node made or stored before it signed ops, kept in its own files:
    /// every peer would refuse them as forged). On the loop.
    func withoutUnsignedReplicas(_ version: VersionVector) -> VersionVector {
        guard let signatures = replica.authenticator as? OpSignatures, !signatures.unsignedReplicas.isEmpty else { return version }
        var merged = version
        let own = replica.version
        for unsigned in signatures.unsignedReplicas where own[unsigned] > merged[unsigned] {
            merged[unsigned] = own[unsigned]
        }
        return merged
    }

    /// Logs, once per peer and replica, a catch-up batch to `connection` that carries every
    /// signature of `replicas`' ops because their last one does not cover this node's log (a log
    /// damaged or forged on disk). On the loop.
    func reportUncoveredCatchUp(_ replicas: [ReplicaID], to connection: Connection) {
        guard !replicas.isEmpty, var signatures = replica.authenticator as? OpSignatures else { return }
        replica.authenticator = nil
        let peer = connection.peer?.label ?? connection.remote
        let first = replicas.filter { signatures.firstUncoveredCatchUp(of: $0, to: peer) }
        replica.authenticator = signatures
        for uncovered in first {
            configuration.log("\(configuration.name): SIGNATURES DO NOT COVER THIS NODE'S LOG: replica \(uncovered) "
                + "(a damaged or forged log); its catch-up to \(peer) carries every signature this node holds for it, "
                + "so that the peer takes the ops they cover and refuses the rest (logged once per peer and replica)")
        }
    }

    /// Forgets the ops a closed connection left waiting for a signature. On the loop.
    func forgetUnsignedTail(of connection: Connection) {
        guard var signatures = replica.authenticator as? OpSignatures else { return }
        replica.authenticator = nil
        signatures.forgetTail(of: connection.id)
        replica.authenticator = signatures
    }
}
