import GalleryCrypto
import GalleryModel
import GalleryWire
import Synchronization

/// The sender's check of a catch-up batch (protocol.md 7.3, "The sender's check"): a batch leaves
/// out the signatures its last signed op's covers, which holds only when this node's log holds the chain
/// its author signed. A log damaged or forged on disk does not: the batch then carries every
/// signature the log holds for that replica, so that a receiver applies the ops up to the forged
/// one (each with its own signature) and refuses the rest, as it would without checkpoints.
extension OpSignatures {
    /// Whether the signature of `run`'s last signed op (and of its checkpoints) holds over `run`
    /// up to that op after the chain `state` holds before it. One signature check per replica
    /// and batch.
    ///
    /// - Complexity: O(k) hashes for k ops, plus O(c) for a chain of c ops before them when the
    ///   hash there is neither the head's, the genesis nor the end of the last batch checked.
    package func signatureCovers(_ run: [Op], in state: Replica) -> Bool {
        signatureHolds(over: run, in: state)
    }

    /// Whether this node sealed or admitted every op of `replica` through `counter`, in chain
    /// order: their signatures in the log are ones it made or checked (a frame's check drops
    /// the others before they are stored), so a batch of them is covered without a check.
    package func vouches(for replica: ReplicaID, through counter: UInt64) -> Bool {
        heads[replica].map { counter <= $0.vouchedThrough } ?? false
    }

    /// Whether a catch-up to `peer` whose batch did not cover `replica` should be logged: true
    /// the first time for that peer and replica (a peer that reconnects after refusing the
    /// forged op asks again, and each batch of a catch-up is checked on its own).
    mutating func firstUncoveredCatchUp(of replica: ReplicaID, to peer: String) -> Bool {
        if reportedUncoveredCatchUps.count >= Self.maximumReportedUncoveredCatchUps { reportedUncoveredCatchUps = [] }
        return reportedUncoveredCatchUps.insert(UncoveredCatchUp(peer: peer, replica: replica)).inserted
    }

    /// Whether the signature of the last signed op of `run` (the one the batch keeps) and those
    /// of the checkpoints before it hold over the ops up to it; true when none is signed (the
    /// batch leaves no signature out then: its ops wait at the receiver for a later one, which
    /// the check of a later batch covers). The chain hash at `run`'s end is kept for the next
    /// batch, which starts there.
    private func signatureHolds(over run: [Op], in state: Replica) -> Bool {
        guard let first = run.first, let last = run.last else { return true }
        let replica = first.id.replica
        let lastSigned = run.lastIndex { $0.seal?.signature != nil }
        let claim = first.previous == 0 ? first.seal?.keyClaim : state.firstOp(of: replica)?.seal?.keyClaim
        guard let claim, let key = try? Ed25519.PublicKey(rawRepresentation: claim.publicKey),
              var hash = chainHash(after: first.previous, of: replica, key: claim.publicKey, in: state)
        else { return lastSigned == nil }
        var signed: [(op: Op, hash: [UInt8])] = []
        for (index, op) in run.enumerated() {
            hash = OpSigning.chain(hash, op)
            if let lastSigned, index == lastSigned || (index < lastSigned && op.isSignatureCheckpoint && op.seal?.signature != nil) {
                signed.append((op, hash))
            }
        }
        catchUpChainHashes.remember(hash, replica: replica, counter: last.lastCounter)
        return signed.reversed().allSatisfy { op, hash in
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
/// forgotten).
///
/// Shared by the copies of an `OpSignatures` (a reference in a value), on purpose and safely:
/// an entry is only ever the starting hash of a signature check (`signatureHolds`), never trusted
/// on its own. The last signed op's signature verifies over (entry, the batch's ops) only if the entry
/// is its author's chain hash at that counter (else SHA-256 or Ed25519 is broken), and then the
/// batch's ops are what the author signed after that point, which is all a receiver needs: it
/// checks the same signature from its own head, which holds its author's chain there. So an
/// entry left by a copy whose log has since taken other ops, or one from a forged log, can only
/// make the check fail (the batch then carries every signature: more bytes, nothing lost), never
/// make a batch that a receiver refuses look covered. A value-semantic copy per `Replica` copy
/// would gain nothing but copies.
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

/// A peer and a replica whose catch-up from this node's log was found not covered (logged once).
struct UncoveredCatchUp: Hashable, Sendable {
    /// The peer's label (name and node ID).
    var peer: String
    var replica: ReplicaID
}
