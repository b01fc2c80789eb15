import GalleryModel
import GalleryWire

/// Answering a `sync_request` (or a `graft`) as a stream: a cursor over the log, one batch of at
/// most `catchUpBatchBytes` per turn of the loop, read straight from the replica's encoded log
/// (nothing is collected or copied ahead), and queued only while the peer's outbox holds less than
/// two batches: a large catch-up never holds the loop, never piles the log up in memory, and live
/// ops keep flowing to the other peers meanwhile.
///
/// Causal order to the peer being caught up: it gets no live ops until its catch-up is done. The
/// catch-up sends the durable ops the peer lacks, in log order; then the ops that became durable
/// while it was sent; then `caught_up` with the durable version vector, and the session is live
/// from that same turn: every op durable afterwards goes out live, after the catch-up.
///
/// A catch-up cut by a disconnect resumes where it stopped: the ops of each replica come in log
/// order, so what the peer received is, per replica, a prefix of what it lacked, and the version
/// vector of its next `sync_request` starts the cursor just past it (`CatchUpCursor`).
extension SyncNode {
    /// Where a catch-up stands.
    struct CatchUp {
        /// The peer's version vector from its `sync_request`.
        var version: VersionVector
        /// The next log position to look at.
        var next: Int
        /// The log positions below this one may be sent (durable when the catch-up began, or since).
        var end: Int
    }

    /// The most log positions one turn looks at when the peer lacks few of them.
    static let catchUpScanLimit = 65_536

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
        sessions[id]?.relay.learned(version)
        let version = withoutUnsignedReplicas(version)
        sessions[id]?.catchUp = CatchUp(
            version: version, next: replica.firstLogPosition(missingFrom: version), end: durability.count)
        relayCountsOnLoop.catchUpsAnswered += 1
        if !running { continueCatchUp(id) }
    }

    /// Sends the next batch of a catch-up, or ends it; continues on a later turn, or once the
    /// peer's outbox has room. On the loop.
    func continueCatchUp(_ id: Int) {
        guard var catchUp = sessions[id]?.catchUp, let connection = connections[id] else { return }
        let budget = min(configuration.catchUpBatchBytes, Int(connection.peer?.maximumFrameSize ?? FrameLimits.minimum))
        let highWater = 2 * budget
        if catchUp.next < catchUp.end {
            guard connection.outbox.queuedBytes < highWater else {
                // Paced by the socket: the next batch is read once the peer has taken these.
                connection.outbox.whenBelow(highWater) { [weak self] in
                    guard let node = self else { return }
                    node.loop.async { node.continueCatchUp(id) }
                }
                return
            }
            var uncovered: [ReplicaID] = []
            let (batch, next) = replica.encodedBatch(
                missingFrom: catchUp.version, from: catchUp.next, below: catchUp.end,
                maximumBytes: budget, maximumScanned: Self.catchUpScanLimit) { uncovered.append($0) }
            reportUncoveredCatchUp(uncovered, to: connection)
            if let batch, let compact = sessions[id]?.compactOps {
                for frame in compact.frames(transcoding: batch, maximumBytes: budget) {
                    connection.send(frame, priority: .ops, backlog: true)
                    relayCountsOnLoop.catchUpFramesSent += 1
                }
            } else if let batch {
                connection.send(Frame(.ops, payload: batch), priority: .ops, backlog: true)
                relayCountsOnLoop.catchUpFramesSent += 1
            }
            catchUp.next = next
        } else if catchUp.end < durability.count {
            // Ops durable since the catch-up began: the peer lacks most of them (any it has, it drops).
            catchUp.end = durability.count
        } else {
            connection.send(.caughtUp(durability.version))
            sessions[id]?.relay.learned(durability.version)
            sessions[id]?.catchUp = nil
            sessions[id]?.live = true
            notifyChange()
            return
        }
        sessions[id]?.catchUp = catchUp
        loop.async { [self] in continueCatchUp(id) }
    }
}
