/// What the relay of one node has received and sent since it started (protocol.md, "Relay"):
/// how close each op comes to arriving once.
public struct RelayCounts: Hashable, Sendable {
    /// `ops` frames received from peers.
    public var opsFramesReceived = 0
    /// Ops received from peers, duplicates included.
    public var opsReceived = 0
    /// Ops received that this node held already.
    public var duplicatesReceived = 0
    /// `tree` beacons sent (one per link each time this node's place in the tree changed).
    public var beaconsSent = 0
    /// `ihave_total` frames sent.
    public var announcementsSent = 0
    /// `prune` frames sent.
    public var prunesSent = 0
    /// `graft` frames sent.
    public var graftsSent = 0
    /// Catch-ups answered (`sync_request` or `graft`).
    public var catchUpsAnswered = 0
    /// `ops` frames sent by catch-ups.
    public var catchUpFramesSent = 0
    /// Version digests sent by the periodic version exchange (instead of a `sync_request`).
    public var digestsSent = 0
    /// Version digests received that did not match this node's vector (answered `differs`).
    public var digestsDiffered = 0
    /// Full `sync_request`s sent by the periodic version exchange (to peers without digests, or
    /// after digests kept differing).
    public var fullExchangesSent = 0
}

extension SyncNode {
    /// What the relay has received and sent since the node started.
    public var relayCounts: RelayCounts {
        loop.sync { relayCountsOnLoop }
    }
}
