/// What the relay of one node has received and sent since it started (protocol.md, "Relay"):
/// how close each op comes to arriving once.
package struct RelayCounts: Hashable, Sendable {
    /// `ops` frames received from peers.
    package var opsFramesReceived = 0
    /// Ops received from peers, duplicates included.
    package var opsReceived = 0
    /// Ops received that this node held already.
    package var duplicatesReceived = 0
    /// `tree` beacons sent (one per link each time this node's place in the tree changed).
    package var beaconsSent = 0
    /// `ihave_total` frames sent.
    package var announcementsSent = 0
    /// `prune` frames sent.
    package var prunesSent = 0
    /// `graft` frames sent.
    package var graftsSent = 0
    /// Catch-ups answered (`sync_request` or `graft`).
    package var catchUpsAnswered = 0
    /// `ops` frames sent by catch-ups.
    package var catchUpFramesSent = 0
    /// Version digests sent by the periodic version exchange (instead of a `sync_request`).
    package var digestsSent = 0
    /// Version digests received that did not match this node's vector (answered `differs`).
    package var digestsDiffered = 0
    /// Full `sync_request`s sent by the periodic version exchange (to peers without digests, or
    /// after digests kept differing).
    package var fullExchangesSent = 0
    /// Relay parents left for withholding ops (`RelayTree.leave`).
    package var parentsLeft = 0
    /// Roots deposed for withholding ops (this node was the child that found it).
    package var rootsDeposed = 0
}

extension SyncNode {
    /// What the relay has received and sent since the node started.
    package var relayCounts: RelayCounts {
        loop.sync { relayCountsOnLoop }
    }
}
