import GalleryCrypto
import GalleryModel
import GalleryWire
import Synchronization

/// The sender's check of a catch-up batch (protocol.md, "Signed ops", "Sending"): a batch leaves
/// out the signatures its last op's covers, which holds only when this node's log holds the chain
/// its author signed. A log damaged or forged on disk does not: the batch then carries every
/// signature the log holds for that replica, so that a receiver applies the ops up to the forged
/// one (each with its own signature) and refuses the rest, as it would without checkpoints.
extension OpSignatures {
    /// Whether the signature of `run`'s last op (and of its checkpoints) holds over `run` after
    /// the chain `state` holds before it. One signature check per replica and batch.
    ///
    /// - Complexity: O(k) hashes for k ops, plus O(c) for a chain of c ops before them when the
    ///   hash there is neither the head's, the genesis nor the end of the last batch checked.
    package func signatureCovers(_ run: [Op], in state: Replica) -> Bool {
        guard let first = run.first, let last = run.last else { return true }
        let replica = first.id.replica
        let covered = signatureHolds(over: run, in: state)
        if !covered {
            report?("SIGNATURES DO NOT COVER THIS NODE'S LOG: replica \(replica), ops \(first.id.counter) to "
                + "\(last.lastCounter) (a damaged or forged log); the catch-up sends every signature it holds for them")
        }
        return covered
    }

    private func signatureHolds(over run: [Op], in state: Replica) -> Bool {
        guard let first = run.first, let last = run.last, let signature = last.seal?.signature else { return false }
        let replica = first.id.replica
        let claim = first.previous == 0 ? first.seal?.keyClaim : state.firstOp(of: replica)?.seal?.keyClaim
        guard let claim, let key = try? Ed25519.PublicKey(rawRepresentation: claim.publicKey),
              var hash = chainHash(after: first.previous, of: replica, key: claim.publicKey, in: state)
        else { return false }
        var checkpoints: [(Op, [UInt8])] = []
        for (index, op) in run.enumerated() {
            hash = OpSigning.chain(hash, op)
            if index < run.count - 1, op.isSignatureCheckpoint, op.seal?.signature != nil { checkpoints.append((op, hash)) }
        }
        catchUpChainHashes.remember(hash, replica: replica, counter: last.lastCounter)
        guard (try? key.verify(signature, for: OpSigning.message(last.id, chain: hash))) != nil else { return false }
        return checkpoints.allSatisfy { op, hash in
            op.seal?.signature.map { (try? key.verify($0, for: OpSigning.message(op.id, chain: hash))) != nil } ?? true
        }
    }

    /// The chain hash of `replica` in this node's log after its op whose last counter is
    /// `counter` (the genesis for 0), or nil when no op ends there.
    private func chainHash(after counter: UInt64, of replica: ReplicaID, key: [UInt8], in state: Replica) -> [UInt8]? {
        let genesis = OpSigning.genesis(space: space, replica: replica, publicKey: key)
        if counter == 0 { return genesis }
        if let head = heads[replica], head.counter == counter { return head.hash }
        if let known = catchUpChainHashes.hash(replica: replica, counter: counter) { return known }
        var hash = genesis
        for op in state.chain(of: replica) {
            guard op.lastCounter <= counter else { break }
            hash = OpSigning.chain(hash, op)
            if op.lastCounter == counter { return hash }
        }
        return nil
    }
}

/// Chain hashes of this node's log by replica and last counter, at most `capacity` (then
/// forgotten): shared by the copies of an `OpSignatures`, whose log's chains they describe.
final class CatchUpChainHashes: Sendable {
    private let hashes = Mutex<[ReplicaID: [UInt64: [UInt8]]]>([:])
    static let capacity = 4_096

    func hash(replica: ReplicaID, counter: UInt64) -> [UInt8]? {
        hashes.withLock { $0[replica]?[counter] }
    }

    func remember(_ hash: [UInt8], replica: ReplicaID, counter: UInt64) {
        hashes.withLock { hashes in
            if hashes.values.reduce(0, { $0 + $1.count }) >= Self.capacity { hashes = [:] }
            hashes[replica, default: [:]][counter] = hash
        }
    }
}
