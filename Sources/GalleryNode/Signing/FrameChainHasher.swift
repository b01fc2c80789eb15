import GalleryModel
import GalleryWire
import Synchronization

/// The chain hash before and after one op of a frame, as hashed off the node's loop (from that
/// very op: a step is given along with the ops it was made from, never on its own).
struct ChainStep: Sendable {
    /// The op's ID (a check that the steps are the ops').
    var id: OpID
    var before: [UInt8]
    var after: [UInt8]
}

/// Chain hashes of the ops of one connection's frames, made on the connection's event loop as
/// each frame arrives (protocol.md, "Signed ops"), so that the node's loop does not hash them.
///
/// Speculative: each replica's chain is followed from the hash after that replica's last op in
/// this connection's earlier frames (or from the genesis its first op claims, or from the head
/// the node's loop seeded), whatever the node holds. `OpSignatures.check` takes a step only when
/// its `before` is the hash it reached itself, so a wrong guess costs a hash on the loop, never a
/// wrong check: `after` is SHA-256 of `before` and that very op, made by the same code.
final class FrameChainHasher: Sendable {
    /// Per replica, the last counter hashed and the chain hash after it.
    private let chains = Mutex<[ReplicaID: (counter: UInt64, hash: [UInt8])]>([:])
    /// Replicas followed at most; past it the chains are forgotten (the loop hashes).
    static let maximumReplicas = 4_096

    init() {}

    /// The steps of `ops` (of space `space`), in order: nil for an op whose predecessor's hash
    /// is not known here.
    ///
    /// - Complexity: O(n) hashes for n ops. On the connection's event loop (one frame at a time:
    ///   a `seed` meanwhile may be lost, which costs hashes on the loop, nothing else).
    func steps(of ops: [Op], space: [UInt8]) -> [ChainStep?] {
        // Taken out while hashing, so that it is changed in place, not copied.
        var chains = self.chains.withLock { chains in
            defer { chains = [:] }
            return chains
        }
        var steps: [ChainStep?] = []
        steps.reserveCapacity(ops.count)
        for op in ops {
            let replica = op.id.replica
            let before: [UInt8]
            if op.previous == 0, let claim = op.seal?.keyClaim {
                before = OpSigning.genesis(space: space, replica: replica, publicKey: claim.publicKey)
            } else if let chain = chains[replica], chain.counter == op.previous {
                before = chain.hash
            } else {
                steps.append(nil)
                continue
            }
            let after = OpSigning.chain(before, op)
            chains[replica] = (op.lastCounter, after)
            steps.append(ChainStep(id: op.id, before: before, after: after))
        }
        if chains.count > Self.maximumReplicas { chains = [:] }
        self.chains.withLock { $0 = chains }
        return steps
    }

    /// Follows `replica`'s chain from `hash` after `counter` (the head the node's loop holds)
    /// when it does not follow it yet. On the node's loop.
    func seed(_ replica: ReplicaID, counter: UInt64, hash: [UInt8]) {
        chains.withLock { chains in
            guard chains[replica] == nil, chains.count < Self.maximumReplicas else { return }
            chains[replica] = (counter, hash)
        }
    }

    /// Whether it follows `replica`'s chain.
    func follows(_ replica: ReplicaID) -> Bool {
        chains.withLock { $0[replica] != nil }
    }
}
