import GalleryModel
import GalleryWire

/// Signed ops on a replica (protocol.md, "Signed ops"): `OpSignatures` installed as the
/// replica's authenticator seals the ops it makes and admits a peer's only when its author signed
/// them. What the node asks of them (a frame's check, the catch-up's version, a closed
/// connection's tail) is done here, on the replica; the node logs and closes connections with
/// what comes back (`SyncNode.checkSignatures`). Each call takes the signatures out of the
/// replica while it works, so that checking them against the replica copies neither.
extension Replica {
    /// A replica with `OpSignatures` installed when `configuration` signs ops (it has a
    /// `replicaSalt`), `self` unchanged otherwise.
    package func signing(with configuration: NodeConfiguration) -> Replica {
        guard let salt = configuration.replicaSalt else { return self }
        var signatures = OpSignatures(
            space: configuration.space,
            signingKey: OpSigning.signingKey(fromNodeKey: configuration.staticKey), salt: salt)
        precondition(signatures.replicaID == id, "the replica ID is not the one bound to the node's key")
        signatures.loadHead(of: id, from: self)
        signatures.unsignedReplicas = Set(version.counters.keys.filter { firstOp(of: $0)?.seal?.keyClaim == nil })
        var signed = self
        signed.authenticator = signatures
        return signed
    }

    /// An empty replica for a node that signs its ops: under the replica ID bound to its key and
    /// salt (`configuration.replicaSalt`, which must be set), sealing what it makes.
    package static func signed(for configuration: NodeConfiguration) -> Replica {
        precondition(configuration.replicaSalt != nil, "a signed replica needs a salt")
        let binding = ReplicaBinding(space: configuration.space, nodeKey: configuration.staticKey)
        return Replica(id: binding.replicaID(salt: configuration.replicaSalt ?? 0)).signing(with: configuration)
    }

    /// Runs `body` on the installed signatures, taken out of the replica meanwhile (`body` gets
    /// the replica without them); nil when the replica signs nothing.
    private mutating func withSignatures<T>(_ body: (inout OpSignatures, Replica) -> T) -> T? {
        guard var signatures = authenticator as? OpSignatures else { return nil }
        authenticator = nil
        let result = body(&signatures, self)
        authenticator = signatures
        return result
    }

    /// Checks the ops of a frame from connection `source` (`OpSignatures.check(frame:)`): the
    /// ops that may go to the replica now, and the forged one if any. Nil when the replica signs
    /// nothing (every op may go).
    mutating func checkSignatures(frame ops: [Op], from source: Int) -> OpSignatures.FrameCheck? {
        withSignatures { signatures, state in signatures.check(frame: ops, from: source, state: state) }
    }

    /// `version` with the ops of replicas that sign nothing counted as held: a catch-up never
    /// sends them (ops this node made or stored before it signed ops, kept in its own files:
    /// every peer would refuse them as forged).
    func countingUnsignedReplicasAsHeld(_ version: VersionVector) -> VersionVector {
        guard let signatures = authenticator as? OpSignatures, !signatures.unsignedReplicas.isEmpty else { return version }
        var merged = version
        let own = self.version
        for unsigned in signatures.unsignedReplicas where own[unsigned] > merged[unsigned] {
            merged[unsigned] = own[unsigned]
        }
        return merged
    }

    /// Of `replicas`, whose signatures do not cover this node's log, those not reported yet for
    /// a catch-up to `peer` (each is reported once per peer and replica).
    mutating func firstUncoveredCatchUps(_ replicas: [ReplicaID], to peer: String) -> [ReplicaID] {
        guard !replicas.isEmpty else { return [] }
        return withSignatures { signatures, _ in replicas.filter { signatures.firstUncoveredCatchUp(of: $0, to: peer) } } ?? []
    }

    /// Forgets the ops connection `source` left waiting for a signature (it closed).
    mutating func forgetUnsignedTail(of source: Int) {
        _ = withSignatures { signatures, _ in signatures.forgetTail(of: source) }
    }
}
