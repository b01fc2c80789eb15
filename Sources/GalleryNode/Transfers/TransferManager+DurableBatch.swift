import Foundation

/// Durable batches of received blobs: a blob whose bytes verified is not made durable alone (an
/// fsync of its file and of its directory, then a durable op, per blob) but joins the next batch,
/// in the manner of the op log's group commit: the stage that finds no batch being stored stores
/// every blob verified so far at once (`BlobSource.store(verified:)`: a `syncfs`, the renames,
/// a second `syncfs`), then commits all their placeholders in one durable batch of ops, and
/// goes on with the blobs verified meanwhile until none is left.
///
/// **Durability**: a placeholder's commit op is made only after `store(verified:)` returned,
/// that is after its blob is durable under its name; the op is durable before any command or
/// peer hears of it (the node's promise). So an acknowledged commit never names bytes a crash
/// could lose, as before, with two flushes per batch instead of two per blob.
extension TransferManager {
    /// Hands a verified blob to the next durable batch; stores the batch (and those after it) on
    /// this thread when no other is storing one.
    func storeVerified(_ hash: String, _ writer: any BlobSink) {
        let leads = verifiedLock.withLock { () -> Bool in
            verifiedBlobs.append((hash, writer))
            guard !storingVerified else { return false }
            storingVerified = true
            return true
        }
        guard leads else { return }
        while true {
            let batch = verifiedLock.withLock { () -> [(hash: String, writer: any BlobSink)] in
                defer { verifiedBlobs = [] }
                if verifiedBlobs.isEmpty { storingVerified = false }
                return verifiedBlobs
            }
            if batch.isEmpty { return }
            storeBatch(batch)
        }
    }

    /// Stores one batch of verified blobs durably, then commits their placeholders (or fails
    /// them, when the batch cannot be stored).
    private func storeBatch(_ batch: [(hash: String, writer: any BlobSink)]) {
        do {
            try blobs.store(verified: batch.map(\.writer))
        } catch {
            let reason = "cannot store the bytes: \(error.localizedDescription)"
            node?.configuration.log("\(node?.configuration.name ?? "?"): cannot store \(batch.count) blob(s): \(error.localizedDescription)")
            for (hash, _) in batch {
                fail(lock.withLock { downloads[hash]?.placeholders ?? [] }, reason: reason)
                lock.withLock { dropUnwanted(hash, failure: .storage(error.localizedDescription)) }
            }
            return
        }
        blobBatches.add(1, ordering: .relaxed)
        batchedBlobs.add(batch.count, ordering: .relaxed)
        complete(batch.map(\.hash))
    }

    /// Durable batches of received blobs stored since the node started, and the blobs in them.
    package var durableBlobBatches: (batches: Int, blobs: Int) {
        (blobBatches.load(ordering: .relaxed), batchedBlobs.load(ordering: .relaxed))
    }
}
