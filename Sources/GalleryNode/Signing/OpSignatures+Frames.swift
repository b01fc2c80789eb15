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
    mutating func check(frame ops: [Op], from source: Int, state: Replica) -> FrameCheck {
        let all = (tails.removeValue(forKey: source) ?? []) + ops
        var positions: [ReplicaID: [Int]] = [:]
        var order: [ReplicaID] = []
        for (index, op) in all.enumerated() {
            if positions[op.id.replica] == nil { order.append(op.id.replica) }
            positions[op.id.replica, default: []].append(index)
        }
        var out = all
        var held = Set<Int>()
        // Ops of a replica from its forged op on: not given back. The other replicas' ops still
        // are (each checked by its own author's signatures): a forged op in a log never keeps a
        // sender's other honest ops of the frame from this node.
        var dropped = Set<Int>()
        var forged: (op: Op, reason: String)?
        replicas: for replica in order {
            loadHead(of: replica, from: state)
            var chainEnd = heads[replica]?.counter ?? 0
            let indices = positions[replica] ?? []
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
                    dropped.formUnion(indices[run.startIndex...])
                    continue replicas
                }
                guard let lastSigned = run.lastIndex(where: { all[$0].seal?.signature != nil }) else {
                    held.formUnion(run)
                    continue
                }
                let covered = run[run.startIndex...lastSigned].map { all[$0] }
                if first.previous == chainEnd {
                    if let reason = check(covered) {
                        // The ops before the first one the author did not sign still count.
                        // The op blamed is the first signed op after them: its signature fails
                        // (the ops between, whose signatures the sender left out, are not proven).
                        let valid = longestSignedPrefix(of: covered)
                        let blamed = covered[valid.count...].first { $0.seal?.signature != nil } ?? covered[valid.count]
                        forged = forged ?? (blamed, reason)
                        for (index, op) in zip(run, valid) { out[index] = op }
                        dropped.formUnion(indices[(run.startIndex + valid.count)...])
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
                    out[index].seal?.signature = nil
                    if out[index].seal?.isEmpty == true { out[index].seal = nil }
                }
                held.formUnion(run[(lastSigned + 1)...])
            }
        }
        if let forged {
            // The connection closes: nothing waits for its next frame.
            return FrameCheck(ops: out.indices.filter { !held.contains($0) && !dropped.contains($0) }.map { out[$0] }, forged: forged)
        }
        guard !held.isEmpty else { return FrameCheck(ops: out) }
        if held.count > Self.maximumTail, let op = held.min().map({ all[$0] }) {
            return FrameCheck(ops: [], forged: (op, "more than \(Self.maximumTail) ops without a signature that covers them"))
        }
        tails[source] = held.sorted().map { all[$0] }
        return FrameCheck(ops: out.indices.filter { !held.contains($0) }.map { out[$0] })
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
