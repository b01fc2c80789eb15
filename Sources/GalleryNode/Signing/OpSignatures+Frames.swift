import GalleryModel

/// The ops of one `ops` or `ops_compact` frame, checked before the replica takes them.
extension OpSignatures {
    /// What a frame's check found: the ops to give the replica, in order, or the op that its
    /// replica's key did not sign.
    struct FrameCheck {
        var ops: [Op]
        var forged: (op: Op, reason: String)?
    }

    /// Checks the ops of a frame from connection `source` (with the ops held back from its
    /// earlier frames before them). Per replica, each run of ops that follow one another is
    /// covered by its last signed op: one signature checked per run, at most one per replica and
    /// frame when the sender sends each replica's ops in order. A run that extends the chain
    /// applied here is checked now; one that waits for a predecessor is checked when its first
    /// op is about to be applied (`admit`); ops after a run's last signature wait for a frame
    /// that brings one. Signatures not checked are dropped from the ops given back; those of
    /// checkpoints (`Op.isSignatureCheckpoint`) are checked with their run's and kept. When a
    /// replica's run is forged, its ops that a signature of theirs covers are given back and the
    /// rest of that replica's are not; the other replicas' ops are checked and given back as usual.
    ///
    /// - Complexity: O(n) hashes for n ops, plus one signature check per run.
    mutating func check(frame ops: [Op], from source: Int, state: Replica, steps frameSteps: [ChainStep?] = []) -> FrameCheck {
        let all: [Op]
        // The chain hashes made off the loop, one per op of `all` (none for the ops held back).
        var steps = frameSteps.count == ops.count ? frameSteps : []
        if let tail = tails.removeValue(forKey: source) {
            all = tail + ops
            if !steps.isEmpty { steps = Array(repeating: nil, count: tail.count) + steps }
        } else {
            all = ops
        }
        let (order, positions) = Self.positionsByReplica(of: all)
        // What becomes of each op: given back as it came, given back without its signature,
        // held for a later frame, or dropped (a forged run's).
        var fates = [Fate](repeating: .given, count: all.count)
        // The ops of a forged run that its author's signatures cover, given back instead.
        var proven: [Int: Op] = [:]
        var forged: (op: Op, reason: String)?
        // Ops of a replica from its forged op on: not given back. The other replicas' ops still
        // are (each checked by its own author's signatures): a forged op in a log never keeps a
        // sender's other honest ops of the frame from this node.
        replicas: for (replica, indices) in zip(order, positions) {
            loadHead(of: replica, from: state)
            var chainEnd = heads[replica]?.counter ?? 0
            var start = 0
            while start < indices.count {
                let first = all[indices[start]]
                // A duplicate (or a second version of an op ID): the replica judges it.
                if first.id.counter <= chainEnd {
                    start += 1
                    continue
                }
                var end = start + 1
                while end < indices.count, all[indices[end]].previous == all[indices[end - 1]].lastCounter { end += 1 }
                let run = indices[start..<end]
                start = end
                if first.previous == chainEnd, let reason = unsignable(first) {
                    forged = forged ?? (first, reason)
                    for index in indices[run.startIndex...] { fates[index] = .dropped }
                    continue replicas
                }
                guard let lastSigned = run.lastIndex(where: { all[$0].seal?.signature != nil }) else {
                    for index in run { fates[index] = .held }
                    continue
                }
                let covered = run[run.startIndex...lastSigned].map { all[$0] }
                if first.previous == chainEnd {
                    if let reason = check(covered, steps: steps.isEmpty ? [] : run[run.startIndex...lastSigned].map { steps[$0] }) {
                        // The ops before the first one the author did not sign still count.
                        // The op blamed is the first signed op after them: its signature fails
                        // (the ops between, whose signatures the sender left out, are not proven).
                        let valid = longestSignedPrefix(of: covered)
                        let blamed = covered[valid.count...].first { $0.seal?.signature != nil } ?? covered[valid.count]
                        forged = forged ?? (blamed, reason)
                        for (index, op) in zip(run, valid) { proven[index] = op }
                        for index in indices[(run.startIndex + valid.count)...] { fates[index] = .dropped }
                        continue replicas
                    }
                    chainEnd = covered.last?.lastCounter ?? chainEnd
                } else if first.previous > chainEnd {
                    keep(Proof(ops: covered, source: source), replica: replica, first: first.id.counter)
                } else {
                    // It contradicts the chain applied here: the replica refuses it as conflicting.
                    continue
                }
                // Checkpoints keep theirs (checked with the run's): a log serves any catch-up from them.
                for index in run[run.startIndex..<lastSigned] where !all[index].isSignatureCheckpoint {
                    fates[index] = .unsigned
                }
                for index in run[(lastSigned + 1)...] { fates[index] = .held }
            }
        }
        var given: [Op] = []
        given.reserveCapacity(all.count)
        var held: [Op] = []
        for (index, fate) in fates.enumerated() {
            switch fate {
            case .given:
                given.append(proven.isEmpty ? all[index] : proven[index] ?? all[index])
            case .unsigned:
                var op = all[index]
                op.seal?.signature = nil
                if op.seal?.isEmpty == true { op.seal = nil }
                given.append(op)
            case .held:
                held.append(all[index])
            case .dropped:
                continue
            }
        }
        // The connection closes: nothing waits for its next frame.
        if let forged { return FrameCheck(ops: given, forged: forged) }
        guard let firstHeld = held.first else { return FrameCheck(ops: given) }
        if held.count > Self.maximumTail {
            return FrameCheck(ops: [], forged: (firstHeld, "more than \(Self.maximumTail) ops without a signature that covers them"))
        }
        tails[source] = held
        return FrameCheck(ops: given)
    }

    /// What a frame's check does with one of its ops.
    private enum Fate: UInt8 {
        case given, unsigned, held, dropped
    }

    /// The replicas of `ops` in the order they first appear, and the indices of each one's ops.
    ///
    /// - Complexity: O(n), one lookup per change of replica between neighbours (a catch-up sends
    ///   each replica's ops together).
    private static func positionsByReplica(of ops: [Op]) -> (order: [ReplicaID], positions: [[Int]]) {
        var order: [ReplicaID] = []
        var positions: [[Int]] = []
        var slots: [ReplicaID: Int] = [:]
        var current: (replica: ReplicaID, slot: Int)?
        for (index, op) in ops.enumerated() {
            let replica = op.id.replica
            if current?.replica != replica {
                let slot = slots[replica] ?? order.count
                if slot == order.count {
                    slots[replica] = slot
                    order.append(replica)
                    positions.append([])
                }
                current = (replica, slot)
            }
            positions[current?.slot ?? 0].append(index)
        }
        return (order, positions)
    }

    /// Why no signature can ever cover `op`, the next op of its chain here: a replica's first op
    /// that claims no key, or an op of a replica that signs nothing (its ops predate signing).
    private func unsignable(_ op: Op) -> String? {
        if op.previous == 0 {
            return op.seal?.keyClaim == nil ? "the first op of replica \(op.id.replica) claims no key" : nil
        }
        if let head = heads[op.id.replica], head.key == nil {
            return "replica \(op.id.replica) signs nothing (its ops predate signed ops): refused from peers"
        }
        return nil
    }

    /// The longest prefix of `run` (whose last signature does not hold) that one of its own
    /// signatures covers, found by bisection over its signed ops: signatures hold up to the first
    /// op that is not its author's and fail from there on, so at most about log2 of them are checked.
    private mutating func longestSignedPrefix(of run: [Op]) -> [Op] {
        let signed = run.indices.filter { run[$0].seal?.signature != nil }.dropLast()
        var low = 0, high = signed.count  // signed[..<low] hold, signed[high...] do not
        while low < high {
            let middle = (low + high) / 2
            if check(Array(run[...signed[signed.startIndex + middle]])) == nil { low = middle + 1 } else { high = middle }
        }
        guard low > 0 else { return [] }
        let prefix = Array(run[...signed[signed.startIndex + low - 1]])
        return prefix.enumerated().map { index, op in
            var stripped = op
            if index < prefix.count - 1 && !op.isSignatureCheckpoint {
                stripped.seal?.signature = nil
                if stripped.seal?.isEmpty == true { stripped.seal = nil }
            }
            return stripped
        }
    }

    /// Forgets what a closed connection left waiting for a signature.
    mutating func forgetTail(of source: Int) {
        tails[source] = nil
    }

    /// Keeps a run that waits for its predecessor. The runs kept hold at most `maximumProofOps`
    /// ops in all (the buffer of early ops holds at most 100,000): past it they are forgotten, and
    /// ops of theirs released later are refused (their senders closed, their ops asked again).
    /// A run is not forgotten when its sender closes: another connection may have sent its ops.
    private mutating func keep(_ proof: Proof, replica: ReplicaID, first: UInt64) {
        if proofOpCount + proof.ops.count > Self.maximumProofOps {
            proofs = [:]
            proofOpCount = 0
        }
        if let replaced = proofs[replica, default: [:]].updateValue(proof, forKey: first) { proofOpCount -= replaced.ops.count }
        proofOpCount += proof.ops.count
    }
}
