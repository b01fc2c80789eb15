/// Who checks that ops come from their author, and seals the ops a replica makes (protocol.md,
/// "Signed ops"). The model has no cryptography: the node gives the replica one of these.
///
/// The replica calls it for every op applied (`didApply`, in order), for every op of a peer just
/// before it is applied (`admit`: its dependencies are applied by then), and for every op it
/// makes (`seal`, before it is applied). Ops of the node's own files are not admitted: they are
/// what the node stored itself.
package protocol OpAuthenticator: Sendable {
    /// Nil when `op`, from a peer, may be applied; otherwise why not (it is then refused as
    /// `ModelError.forgedOp`).
    mutating func admit(_ op: Op) -> String?
    /// The seal of an op this replica makes, or nil to make it unsigned.
    mutating func seal(_ op: Op) -> OpSeal?
    /// `op` was applied.
    mutating func didApply(_ op: Op)
    /// Whether the signature of `run`'s last signed op (the ops of one replica in a catch-up
    /// batch, in chain order, read from `state`'s log) holds over the chain this node holds; true
    /// when none is signed. When it does not, the batch carries every signature the log holds for
    /// them (`Replica.encodedBatch`).
    func signatureCovers(_ run: [Op], in state: Replica) -> Bool
    /// Whether the log holds `replica`'s ops through its op with counter `counter` as their
    /// author signed them, known without a check: ops this authenticator sealed or admitted, in
    /// chain order, and the signatures kept with them are ones it made or checked. A catch-up
    /// then leaves their signatures out without checking them again (`signatureCovers`).
    func vouches(for replica: ReplicaID, through counter: UInt64) -> Bool
}

extension OpAuthenticator {
    /// An authenticator that checks nothing finds every run covered.
    package func signatureCovers(_ run: [Op], in state: Replica) -> Bool { true }
    /// An authenticator that keeps no record vouches for nothing.
    package func vouches(for replica: ReplicaID, through counter: UInt64) -> Bool { false }
}

extension Replica {
    /// Calls `body` with the authenticator taken out of the replica (so that it can be mutated
    /// while the replica is), and puts it back.
    mutating func withAuthenticator<Result>(_ body: (inout any OpAuthenticator) -> Result) -> Result? {
        guard var authenticator else { return nil }
        self.authenticator = nil
        defer { self.authenticator = authenticator }
        return body(&authenticator)
    }

    /// Why a peer's op must not be applied, as a `forgedOp` error, or nil.
    mutating func authenticationFailure(of op: Op) -> ModelError? {
        guard authenticator != nil else { return nil }
        return withAuthenticator { $0.admit(op) }.flatMap { $0 }.map { .forgedOp(op.id, $0) }
    }
}

/// A held op refused when its dependencies arrived, because its author did not sign it: the node
/// reports it and closes the connections that sent it (`Replica.takeForgedHeldOps()`).
package struct ForgedHeldOp: Sendable, Equatable {
    /// Why (`ModelError.forgedOp`).
    package var error: ModelError
    /// The sources that sent it.
    package var sources: [Int]
}

extension Replica {
    /// The held ops refused as forged since the last call, and forgets them.
    package mutating func takeForgedHeldOps() -> [ForgedHeldOp] {
        defer { forgedHeldOps = [] }
        return forgedHeldOps
    }
}

extension Replica {
    /// The applied ops of `replica`, its chain, in counter order (what an authenticator hashes to
    /// learn the chain's head).
    ///
    /// - Complexity: O(k + b) for its k ops of b bytes.
    package func chain(of replica: ReplicaID) -> [Op] {
        table.index(of: replica).map { log.ops(ofReplicaIndex: $0) } ?? []
    }
}

extension Replica {
    /// The first applied op of `replica`, if any.
    ///
    /// - Complexity: O(log n + b) for an op of b bytes.
    package func firstOp(of replica: ReplicaID) -> Op? {
        guard let index = table.index(of: replica) else { return nil }
        return log.ops(ofReplicaIndex: index, first: 1).first
    }
}
