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
///
/// Where each catch-up stands is `PeerSessions`' (`PeerSessions+CatchUp`); this reads the batches
/// from the replica and sends them.
extension SyncNode {
    /// The most log positions one turn looks at when the peer lacks few of them.
    static let catchUpScanLimit = 65_536

    /// Starts answering a `sync_request`: deferred while ops cannot be stored. On the loop.
    func startCatchUp(_ id: Int, from version: VersionVector) {
        guard sessions[id] != nil, connections[id] != nil else { return }
        if storageFault != nil {
            // The replica holds ops that are not durable: answer once they are.
            peerSessions.deferCatchUp(id, from: version)
            return
        }
        let sending = withoutUnsignedReplicas(version)
        let next = replica.firstLogPosition(missingFrom: sending)
        let starts = peerSessions.startCatchUp(id, requested: version, sending: sending, next: next, end: durability.count)
        relayCountsOnLoop.catchUpsAnswered += 1
        if starts { continueCatchUp(id) }
    }

    /// Takes the next step of a catch-up (`PeerSessions.nextCatchUpStep`): sends a batch, or
    /// `caught_up` at its end; continues on a later turn, or once the peer's outbox has room.
    /// On the loop.
    func continueCatchUp(_ id: Int) {
        guard sessions[id]?.catchUp != nil, let connection = connections[id] else { return }
        let budget = min(configuration.catchUpBatchBytes, Int(connection.peer?.maximumFrameSize ?? FrameLimits.minimum))
        let step = peerSessions.nextCatchUpStep(
            id, queuedBytes: connection.outbox.queuedBytes, budget: budget, durableCount: durability.count)
        switch step {
        case nil:
            return
        case .waitForRoom(let highWater):
            // Paced by the socket: the next batch is read once the peer has taken these.
            connection.outbox.whenBelow(highWater) { [weak self] in
                guard let node = self else { return }
                node.loop.async { node.continueCatchUp(id) }
            }
            return
        case .sendBatch(let version, let from, let below, let maximumBytes):
            var uncovered: [ReplicaID] = []
            let (batch, next) = replica.encodedBatch(
                missingFrom: version, from: from, below: below,
                maximumBytes: maximumBytes, maximumScanned: Self.catchUpScanLimit) { uncovered.append($0) }
            reportUncoveredCatchUp(uncovered, to: connection)
            if let batch, let compact = sessions[id]?.compactOps {
                for frame in compact.frames(transcoding: batch, maximumBytes: maximumBytes) {
                    connection.send(frame, priority: .ops, backlog: true)
                    relayCountsOnLoop.catchUpFramesSent += 1
                }
            } else if let batch {
                connection.send(Frame(.ops, payload: batch), priority: .ops, backlog: true)
                relayCountsOnLoop.catchUpFramesSent += 1
            }
            peerSessions.catchUpSent(id, upTo: next)
        case .extended:
            break
        case .finish:
            connection.send(.caughtUp(durability.version))
            peerSessions.finishCatchUp(id, at: durability.version)
            notifyChange()
            return
        }
        loop.async { [self] in continueCatchUp(id) }
    }
}
