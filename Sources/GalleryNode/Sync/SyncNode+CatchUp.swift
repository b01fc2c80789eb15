import GalleryModel
import GalleryWire

/// Answering a `sync_request` in steps: one batch of at most `catchUpBatchBytes` per turn of the
/// loop, so that a large catch-up never holds the loop, and live ops keep flowing to the other
/// peers meanwhile.
///
/// Causal order to the peer being caught up: it gets no live ops until its catch-up is done. The
/// catch-up sends the durable ops the peer lacks, in log order; then the ops that became durable
/// while it was sent; then `caught_up` with the durable version vector, and the session is live
/// from that same turn: every op durable afterwards goes out live, after the catch-up.
extension SyncNode {
    /// Where a catch-up stands.
    struct CatchUp {
        /// The peer's version vector from its `sync_request`.
        var version: VersionVector
        /// Log positions still to send (from `next` on).
        var positions: [Int32]
        var next = 0
        /// The ops below this log position are covered by `positions`.
        var scannedTo: Int
    }

    /// Starts answering a `sync_request`: deferred while ops cannot be stored. On the loop.
    func startCatchUp(_ id: Int, from version: VersionVector) {
        guard sessions[id] != nil, connections[id] != nil else { return }
        if storageFault != nil {
            // The replica holds ops that are not durable: answer once they are.
            deferredCatchUps[id] = version
            return
        }
        let running = sessions[id]?.catchUp != nil
        // A fresh request (a gap re-request on a live session) holds live ops back until its
        // catch-up is sent, so that the peer gets them in causal order.
        sessions[id]?.live = false
        sessions[id]?.catchUp = CatchUp(
            version: version, positions: replica.logPositions(missingFrom: version, below: durableCount),
            scannedTo: durableCount)
        if !running { continueCatchUp(id) }
    }

    /// Sends the next batch of a catch-up, or ends it; queues the next turn. On the loop.
    func continueCatchUp(_ id: Int) {
        guard var catchUp = sessions[id]?.catchUp, let connection = connections[id] else { return }
        if catchUp.next < catchUp.positions.count {
            let budget = min(configuration.catchUpBatchBytes, Int(connection.peer?.maximumFrameSize ?? FrameLimits.minimum))
            let (batch, taken) = replica.encodedBatch(atLogPositions: catchUp.positions[catchUp.next...], maximumBytes: budget)
            connection.send(Frame(.ops, payload: batch), priority: .ops, backlog: true)
            catchUp.next += taken
        } else if catchUp.scannedTo < durableCount {
            // Ops durable since the catch-up began: the peer lacks most of them (any it has, it drops).
            catchUp.positions = Array(Int32(catchUp.scannedTo)..<Int32(durableCount))
            catchUp.next = 0
            catchUp.scannedTo = durableCount
        } else {
            connection.send(.caughtUp(durableVersion))
            sessions[id]?.catchUp = nil
            sessions[id]?.live = true
            notifyChange()
            return
        }
        sessions[id]?.catchUp = catchUp
        loop.async { [self] in continueCatchUp(id) }
    }
}
