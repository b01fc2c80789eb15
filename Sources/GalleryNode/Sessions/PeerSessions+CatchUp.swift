import GalleryModel

/// Where each peer's catch-up stands (protocol.md, "Sync"): the answer to a `sync_request` (or a
/// `graft`) is sent a batch per turn of the loop, paced by the peer's outbox; the ops that became
/// durable meanwhile follow; then `caught_up`, and the session is live from that same turn. This
/// part decides; the node reads the batches from the replica and sends them (`SyncNode+Sessions`, its catch-up part).
extension PeerSessions {
    /// Where a catch-up stands.
    struct CatchUp: Equatable {
        /// The peer's version vector from its `sync_request` (less the replicas not sent unsigned).
        var version: VersionVector
        /// The next log position to look at.
        var next: Int
        /// The log positions below this one may be sent (durable when the catch-up began, or since).
        var end: Int
    }

    /// What the node does next for a catch-up.
    enum CatchUpStep: Equatable {
        /// The peer's outbox holds two batches already: continue once it is below `highWater` bytes.
        case waitForRoom(highWater: Int)
        /// Send the ops of the log in `from ..< below` that `missingFrom` lacks, at most `maximumBytes`,
        /// then report where the batch stopped (`catchUpSent`).
        case sendBatch(missingFrom: VersionVector, from: Int, below: Int, maximumBytes: Int)
        /// Ops became durable since the catch-up began: it now reaches them; continue on a later turn.
        case extended
        /// Everything durable was sent: send `caught_up` with the durable vector (`finishCatchUp`).
        case finish
    }

    /// The peer on `id` asked (`sync_request`) from `requested`; the catch-up sends what `sending`
    /// lacks (the vector less the replicas this node does not send unsigned), from log position
    /// `next` up to the durable end `end`. Live ops to it stop until it is sent, so that they come
    /// in causal order. Returns whether the node starts sending now (no catch-up was running: a
    /// running one carries on from the new cursor). False without a session.
    mutating func startCatchUp(
        _ id: Int, requested: VersionVector, sending: VersionVector, next: Int, end: Int
    ) -> Bool {
        guard sessions[id] != nil else { return false }
        let running = sessions[id]?.catchUp != nil
        sessions[id]?.live = false
        sessions[id]?.relay.learned(requested)
        sessions[id]?.catchUp = CatchUp(version: sending, next: next, end: end)
        return !running
    }

    /// The `sync_request` of `id` came while ops could not be stored: answered once they can.
    mutating func deferCatchUp(_ id: Int, from version: VersionVector) {
        deferredCatchUps[id] = version
    }

    /// Storing works again: the requests deferred meanwhile, to answer now.
    mutating func takeDeferredCatchUps() -> [Int: VersionVector] {
        defer { deferredCatchUps = [:] }
        return deferredCatchUps
    }

    /// The next step of the catch-up on `id`, given the bytes queued in the peer's outbox, the
    /// batch budget and how much of the log is durable; nil when no catch-up runs there. Records
    /// what the step changes, except a batch's end (`catchUpSent`).
    mutating func nextCatchUpStep(_ id: Int, queuedBytes: Int, budget: Int, durableCount: Int) -> CatchUpStep? {
        guard var catchUp = sessions[id]?.catchUp else { return nil }
        let highWater = 2 * budget
        if catchUp.next < catchUp.end {
            guard queuedBytes < highWater else { return .waitForRoom(highWater: highWater) }
            return .sendBatch(missingFrom: catchUp.version, from: catchUp.next, below: catchUp.end, maximumBytes: budget)
        }
        guard catchUp.end >= durableCount else {
            // Ops durable since the catch-up began: the peer lacks most of them (any it has, it drops).
            catchUp.end = durableCount
            sessions[id]?.catchUp = catchUp
            return .extended
        }
        return .finish
    }

    /// The batch of the catch-up on `id` ended before log position `next`.
    mutating func catchUpSent(_ id: Int, upTo next: Int) {
        guard var catchUp = sessions[id]?.catchUp else { return }
        catchUp.next = next
        sessions[id]?.catchUp = catchUp
    }

    /// The catch-up on `id` ended with `caught_up` at `durable`: the peer holds that, and the
    /// session is live.
    mutating func finishCatchUp(_ id: Int, at durable: VersionVector) {
        sessions[id]?.relay.learned(durable)
        sessions[id]?.catchUp = nil
        sessions[id]?.live = true
    }
}
