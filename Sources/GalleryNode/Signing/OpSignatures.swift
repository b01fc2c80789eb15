import GalleryCrypto
import GalleryModel
import GalleryWire

/// Signed ops (protocol.md, "Signed ops"): seals the ops this node makes, and lets a peer's op be
/// applied only when its replica's key signed it.
///
/// Each replica's ops form a chain (each names its predecessor); its chain hash after op k is
/// SHA-256(hash after op k-1 || op k without seal), starting from a genesis hash that binds the
/// space, the replica ID and its key. The author signs the chain hash after every op it makes, so
/// one valid signature proves every op of the chain up to it: a receiver checks one signature per
/// replica per frame (the last one), not one per op, plus one per checkpoint (an op whose counters
/// reach a new block of 4,096, `Op.isSignatureCheckpoint`), which every node keeps and sends so
/// that its log covers any catch-up with signatures at most 4,096 ops apart. The other
/// intermediate signatures are dropped before the ops are stored, so this node never passes on a
/// signature it has not seen hold; a catch-up sends per replica and batch the last signed op's signature
/// and the checkpoints' only (`OpLog.encodedBatchWithCoveringSignatures`).
///
/// Kept per replica: the head of its chain as applied here, built from the replica's log when
/// first needed. Ops of replicas whose first op carries no key (ops made before signing, in this
/// node's own files) are kept and served to no one: they are refused from peers.
package struct OpSignatures: OpAuthenticator {
    /// The head of a replica's chain as applied here.
    struct Head: Sendable {
        /// The replica's key, nil for a replica of unsigned ops (made before version 4).
        var key: Ed25519.PublicKey?
        /// The last counter applied (0: none).
        var counter: UInt64
        /// The chain hash after that op.
        var hash: [UInt8]
        /// The last counter through which every op of the chain was sealed here or admitted, in
        /// chain order (`vouches(for:through:)`); 0 when its first op was neither (ops of the
        /// node's own files, or a head learned again from the log).
        var vouchedThrough: UInt64 = 0
    }

    /// A run of ops of one replica that arrived before its predecessor, with the signature of its
    /// last op: checked when its first op is about to be applied.
    struct Proof: Sendable {
        var ops: [Op]
        /// The connection that sent it.
        var source: Int
    }

    let space: [UInt8]
    let signingKey: Ed25519.PrivateKey
    /// The salt of this node's replica ID.
    let salt: UInt64
    var heads: [ReplicaID: Head] = [:]
    /// Per replica, the ops a checked signature covers and that are not applied yet, in chain
    /// order, with the chain hash after each (`CoveredRun`): an op is admitted only if it is one.
    var expected: [ReplicaID: CoveredRun] = [:]
    /// How many ops `expected` holds not admitted yet; past `maximumExpected` it is cleared (the
    /// ops then need a signature of their own, or another frame).
    var expectedCount = 0
    static let maximumExpected = 1_000_000
    /// Runs waiting for their predecessor, by replica and the counter of their first op.
    var proofs: [ReplicaID: [UInt64: Proof]] = [:]
    /// The ops of the runs in `proofs`.
    var proofOpCount = 0
    static let maximumProofOps = 200_000
    /// Per connection, the ops held back until a signature covering them arrives (a frame may end
    /// in the middle of a run).
    var tails: [Int: [Op]] = [:]
    /// The replicas of this node's own files that sign nothing (made before version 4): kept,
    /// never sent.
    var unsignedReplicas: Set<ReplicaID> = []
    /// The op `admit` let through last and its chain hash, which `didApply` then takes as is.
    private var admitted: (id: OpID, hash: [UInt8])?
    /// The op `seal` signed last (this node's own), until `didApply` takes it.
    private var sealed: OpID?
    /// The most ops held back per connection.
    static let maximumTail = 10_000
    /// Chain hashes of this node's log at the ends of the catch-up batches checked last
    /// (`signatureCovers`), so that the next batch of a catch-up does not hash the chain again.
    let catchUpChainHashes = CatchUpChainHashes()
    /// The peers and replicas whose catch-up was found not covered and logged (at most
    /// `maximumReportedUncoveredCatchUps`, then forgotten).
    var reportedUncoveredCatchUps: Set<UncoveredCatchUp> = []
    static let maximumReportedUncoveredCatchUps = 4_096
    /// Signatures checked, and ops whose signature was covered by another's (for benchmarks).
    private(set) var verifications = 0
    /// Chain hashes of received ops made by `check` (those not made off the loop), for tests.
    private(set) var chainHashesMade = 0

    /// - Parameters:
    ///   - space: The space ID (`OpSigning.spaceID`).
    ///   - signingKey: The node's key (`OpSigning.signingKey`).
    ///   - salt: The salt of the node's replica ID (`OpSigning.replicaID`).
    package init(space: [UInt8], signingKey: Ed25519.PrivateKey, salt: UInt64) {
        self.space = space
        self.signingKey = signingKey
        self.salt = salt
        replicaID = OpSigning.replicaID(space: space, publicKey: signingKey.publicKey.rawRepresentation, salt: salt)
    }

    /// The replica ID this node's ops are made under.
    package let replicaID: ReplicaID

    // MARK: OpAuthenticator

    package mutating func seal(_ op: Op) -> OpSeal? {
        let replica = op.id.replica
        guard replica == replicaID else { return nil }
        var seal = OpSeal()
        let before: [UInt8]
        if op.previous == 0 {
            seal.keyClaim = OpSeal.KeyClaim(publicKey: signingKey.publicKey.rawRepresentation, salt: salt)
            before = OpSigning.genesis(space: space, replica: replica, publicKey: signingKey.publicKey.rawRepresentation)
        } else {
            guard let head = heads[replica], head.counter == op.previous else { return nil }
            before = head.hash
        }
        seal.signature = signingKey.signature(for: OpSigning.message(op.id, chain: OpSigning.chain(before, op)))
        sealed = op.id
        return seal
    }

    package mutating func didApply(_ op: Op) {
        let replica = op.id.replica
        let known = admitted?.id == op.id ? admitted?.hash : nil
        let vouched = known != nil || sealed == op.id
        admitted = nil
        sealed = nil
        if op.previous == 0 {
            let key = op.seal?.keyClaim.flatMap { try? Ed25519.PublicKey(rawRepresentation: $0.publicKey) }
            let genesis = key.map { OpSigning.genesis(space: space, replica: replica, publicKey: $0.rawRepresentation) } ?? []
            heads[replica] = Head(
                key: key, counter: op.lastCounter, hash: OpSigning.chain(genesis, op), vouchedThrough: vouched ? op.lastCounter : 0)
            return
        }
        // Changed in place: one lookup, and the head (its key's tables) is not copied per op.
        guard let index = heads.index(forKey: replica) else { return }
        guard heads.values[index].counter == op.previous else {
            // Not the next op of the chain known here: learn the head again from the log.
            heads.remove(at: index)
            return
        }
        heads.values[index].hash = known ?? OpSigning.chain(heads.values[index].hash, op)
        if vouched && heads.values[index].vouchedThrough == op.previous { heads.values[index].vouchedThrough = op.lastCounter }
        heads.values[index].counter = op.lastCounter
    }

    package mutating func admit(_ op: Op) -> String? {
        let replica = op.id.replica
        var coverage = takeCovered(op)
        if case .none = coverage {
            if let proof = proofs[replica]?.removeValue(forKey: op.id.counter) {
                proofOpCount -= proof.ops.count
                if let failure = check(proof.ops) { return failure }
            } else if op.seal?.signature != nil {
                if let failure = check([op]) { return failure }
            } else {
                return "no signature covers it"
            }
            coverage = takeCovered(op)
        }
        // The op the signature covered (compared as values, its seal aside: cheaper than hashing
        // it again), at the place it covered (its predecessor is the one hashed before it).
        switch coverage {
        case .none:
            return "no signature covers it"
        case .differs:
            return "it differs from the op its replica signed under that ID"
        case .covered(let hash):
            guard chainHash(before: op) != nil else { return "it differs from the op its replica signed under that ID" }
            admitted = (op.id, hash)
        }
        return nil
    }

    /// The chain hash before `op` as applied here (its predecessor is applied), or nil if unknown.
    private func chainHash(before op: Op) -> [UInt8]? {
        if op.previous == 0 {
            guard let claim = op.seal?.keyClaim else { return nil }
            return OpSigning.genesis(space: space, replica: op.id.replica, publicKey: claim.publicKey)
        }
        guard let head = heads[op.id.replica], head.counter == op.previous else { return nil }
        return head.hash
    }

    // MARK: Checking

    /// Learns the head of `replica`'s chain from the ops applied here, once.
    mutating func loadHead(of replica: ReplicaID, from state: Replica) {
        guard heads[replica] == nil else { return }
        let chain = state.chain(of: replica)
        guard let first = chain.first, first.previous == 0 else { return }
        let key = first.seal?.keyClaim.flatMap { try? Ed25519.PublicKey(rawRepresentation: $0.publicKey) }
        var hash = key.map { OpSigning.genesis(space: space, replica: replica, publicKey: $0.rawRepresentation) } ?? []
        for op in chain { hash = OpSigning.chain(hash, op) }
        heads[replica] = Head(key: key, counter: chain.last?.lastCounter ?? 0, hash: hash)
    }

    /// Checks a run of ops of one replica, each the next of the one before, whose first extends
    /// the chain applied here and whose last is signed: nil when the signature holds (every op
    /// of the run is then covered), else why not. `steps`: the chain hashes of the run's ops
    /// made off the loop (`FrameChainHasher`), each taken only when it starts at the hash
    /// reached here.
    mutating func check(_ run: [Op], steps: [ChainStep?] = []) -> String? {
        guard let first = run.first, let last = run.last else { return nil }
        let replica = first.id.replica
        var key: Ed25519.PublicKey
        var hash: [UInt8]
        var following: Int?
        if first.previous == 0 {
            guard let claim = first.seal?.keyClaim else { return "the first op of replica \(replica) claims no key" }
            guard let claimed = try? Ed25519.PublicKey(rawRepresentation: claim.publicKey) else { return "its key claim is not a valid Ed25519 key" }
            guard OpSigning.replicaID(space: space, publicKey: claim.publicKey, salt: claim.salt) == replica else {
                return "replica \(replica) is not the replica of the key it claims in this space"
            }
            key = claimed
            hash = OpSigning.genesis(space: space, replica: replica, publicKey: claim.publicKey)
        } else if let head = heads[replica], head.counter == first.previous {
            guard let known = head.key else { return "replica \(replica) signs nothing (its ops predate signed ops): refused from peers" }
            key = known
            hash = head.hash
        } else if let covered = coveredChain(of: replica, through: first.previous) {
            // It follows covered ops not applied yet (another run of the same frame).
            (key, hash, following) = (covered.key, covered.hash, covered.index)
        } else {
            return "its predecessor's chain is unknown here"
        }
        var hashes: [[UInt8]] = []
        hashes.reserveCapacity(run.count)
        for (index, op) in run.enumerated() {
            if index < steps.count, let step = steps[index], step.id == op.id, step.before == hash {
                hash = step.after
            } else {
                hash = OpSigning.chain(hash, op)
                chainHashesMade += 1
            }
            hashes.append(hash)
        }
        guard let signature = last.seal?.signature else { return "no signature covers it" }
        verifications += 1
        do {
            try key.verify(signature, for: OpSigning.message(last.id, chain: hash))
        } catch {
            return "signature of \(last.id): \(error.localizedDescription)"
        }
        // A checkpoint's signature is kept and passed on: checked too (at most one per 4,096 ops).
        for (op, hash) in zip(run.dropLast(), hashes) where op.isSignatureCheckpoint {
            guard let signature = op.seal?.signature else { continue }
            verifications += 1
            do {
                try key.verify(signature, for: OpSigning.message(op.id, chain: hash))
            } catch {
                return "signature of checkpoint \(op.id): \(error.localizedDescription)"
            }
        }
        expect(run, hashes: hashes, key: key, replica: replica, following: following)
        return nil
    }
}
