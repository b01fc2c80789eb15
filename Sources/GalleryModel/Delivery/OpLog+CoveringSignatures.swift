/// What a catch-up sends of the signatures a log holds (protocol.md, "Signed ops", "Sending"):
/// per replica, the signature of its last op in the batch that has one (it covers every earlier
/// op of the replica there), of its checkpoints and of its first op (whose seal claims the key); no
/// other. The log keeps every signature it was given; a batch carries about one per replica.
extension OpLog {
    /// The ops at log positions `selected`, in that order, as one `OpCodec` batch with only the
    /// signatures a receiver needs; the ops of the replicas in `keepingEverySignature` keep every
    /// signature the log holds (their last one does not cover the chain this log holds).
    ///
    /// - Complexity: O(k + b) for k ops of b bytes: a sealed op's layout is walked
    ///   (`OpCodec.layout`), never decoded into an `Op`.
    func encodedBatchWithCoveringSignatures(of selected: [Int32], keepingEverySignature: Set<ReplicaID> = []) -> [UInt8] {
        // The last sealed op of each replica in the batch keeps its seal: a relay's log holds
        // signatures at checkpoints and frame ends only, so the batch's last op may have none,
        // and the last one before it then covers the ops before it (the rest wait at the receiver
        // for the next signature).
        var seen = Set<ReplicaID>()
        var keepsSeal = [Bool](repeating: false, count: selected.count)
        for index in selected.indices.reversed() {
            let (chunk, start) = location(of: selected[index])
            guard chunks[chunk].bytes[start] & OpCodec.sealedKindFlag != 0 else { continue }
            keepsSeal[index] = seen.insert(opID(at: selected[index]).replica).inserted
        }
        var body: [UInt8] = []
        for (index, position) in selected.enumerated() {
            let (chunk, start) = location(of: position)
            let next = Int(position) + 1 < count ? location(of: position + 1) : (chunk + 1, 0)
            let end = next.0 == chunk ? next.1 : chunks[chunk].bytes.count
            let encoded = chunks[chunk].bytes[start..<end]
            if !keepsSeal[index], keepingEverySignature.isEmpty || !keepingEverySignature.contains(opID(at: position).replica),
               let sealStart = Self.coveredSignatureStart(in: encoded, chunk: chunks[chunk].bytes) {
                let first = body.count
                body.append(contentsOf: encoded[..<sealStart])
                body[first] &= ~OpCodec.sealedKindFlag
            } else {
                body.append(contentsOf: encoded)
            }
        }
        var batch = ByteWriter(capacity: body.count + 10)
        batch.varint(UInt64(selected.count))
        batch.append(body)
        return batch.bytes
    }

    /// Where the seal of `encoded` (one op of the log, in `bytes`) starts when the seal is a
    /// signature alone that a later op's may cover: the op is not its replica's first (whose
    /// seal claims the key) and not a checkpoint. Nil when the op keeps its seal.
    private static func coveredSignatureStart(in encoded: ArraySlice<UInt8>, chunk bytes: [UInt8]) -> Int? {
        guard let kind = encoded.first, kind & OpCodec.sealedKindFlag != 0,
              let layout = try? OpCodec.layout(of: bytes, at: encoded.startIndex), layout.end == encoded.endIndex,
              layout.previous != 0, !layout.isSignatureCheckpoint
        else { return nil }
        // A seal of a signature alone: the flags (signature only) and the 64-byte signature.
        guard layout.end - layout.bodyEnd == 1 + OpSeal.signatureBytes, bytes[layout.bodyEnd] == OpCodec.signatureOnlySealFlags else { return nil }
        return layout.bodyEnd
    }
}
