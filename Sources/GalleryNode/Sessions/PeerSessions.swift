import GalleryModel
import GalleryWire

/// The sync sessions of the node's authenticated connections: the node's sessions component
/// (protocol.md, "Sync").
///
/// One `Session` per authenticated connection, kept in connection order (`order`); the catch-up
/// each peer is being sent (`PeerSessions+CatchUp`); the gap watch over ops waiting for their
/// dependencies and the periodic version exchange, by digest or by vector
/// (`PeerSessions+VersionExchange`). Sans I/O: the node feeds it what happened (a session began,
/// a `caught_up` came, a digest came, a pass runs) and acts on what it returns (frames to send,
/// peers to ask). Owned by the node's loop (`SyncNode+Loop`).
struct PeerSessions {
    /// What the node knows of one authenticated connection.
    struct Session {
        /// Ops flow to the peer live once its catch-up is sent.
        var live = false
        /// The peer's version vector at its `caught_up`.
        var syncedUpTo: VersionVector?
        /// The catch-up being sent, a batch per loop turn.
        var catchUp: CatchUp?
        /// When (uptime, nanoseconds) this node last sent the peer its version vector.
        var lastVersionSent: UInt64
        /// What the peer holds, whether the link is grafted, what was announced on it (`SyncNode+Relay`).
        var relay = RelayPolicy()
        /// The peer said it speaks `version_digest`: the periodic version exchange sends it a
        /// digest instead of the whole vector (`PeerSessions+VersionExchange`).
        var peerSpeaksDigests = false
        /// The peer answered this many digests in a row with `differs`; at
        /// `VersionDigest.confirmations` the next `differs` brings the full `sync_request`.
        var digestMisses = 0
        /// When the next digest confirms a `differs` (ops in flight make vectors differ a moment).
        var digestConfirmAt: UInt64?
        /// The tables of `ops_compact` towards the peer, once its `features` accepted them (and
        /// `NodeConfiguration.compactOps` is on); nil: ops go in `ops` frames.
        var compactOps: CompactOpsWriter?
    }

    private var table: [Int: Session] = [:]
    /// How many times `sessions` was written: a pass that finds it unchanged since its last look,
    /// and nothing due by time, skips its scan of the sessions (`Liveness.Look`).
    private(set) var changes: UInt64 = 0
    /// The keys of `sessions`, ascending: the order passes visit them in (kept, not sorted per pass).
    private(set) var order: [Int] = []
    /// Sessions whose `sync_request` came while ops could not be stored: answered once they can
    /// (written by `PeerSessions+CatchUp` only).
    var deferredCatchUps: [Int: VersionVector] = [:]
    /// How long received ops have waited in the causal buffer (written by `checkGaps` only).
    var gaps: GapWatch
    /// The version exchange's last look at the sessions (written by `lookedAtVersions` only).
    var versionLook = Liveness.Look()

    /// No session yet; ops may wait `gapTimeout` nanoseconds for a dependency before the peers
    /// are asked again.
    init(gapTimeout: UInt64) {
        gaps = GapWatch(timeout: gapTimeout)
    }

    /// The sessions by connection ID. Every write counts in `changes`.
    var sessions: [Int: Session] {
        _read { yield table }
        _modify {
            changes &+= 1
            yield &table
        }
    }

    /// Connection `id` authenticated: its session starts afresh, not live, its version last sent `now`.
    mutating func begin(_ id: Int, now: UInt64, relayTrees: Bool) {
        if table[id] == nil {
            let place = order.firstIndex { $0 > id } ?? order.endIndex
            order.insert(id, at: place)
        }
        sessions[id] = Session(lastVersionSent: now, relay: RelayPolicy(trees: relayTrees))
    }

    /// Connection `id` closed: its session and anything deferred for it go. Returns the session
    /// that ended, nil when it had none.
    mutating func end(_ id: Int) -> Session? {
        let ended = sessions.removeValue(forKey: id)
        if ended != nil { order.removeAll { $0 == id } }
        deferredCatchUps[id] = nil
        return ended
    }

    /// The peer on `id` sent `caught_up` with `version`: nil without a session; else the vector it
    /// had before, and whether this ends the session's first catch-up.
    mutating func caughtUp(_ id: Int, at version: VersionVector) -> (previous: VersionVector?, first: Bool) {
        let previous = sessions[id]?.syncedUpTo
        sessions[id]?.syncedUpTo = version
        let first = sessions[id]?.relay.firstCatchUpPending == true
        sessions[id]?.relay.caughtUp(version)
        return (previous, first)
    }

    /// The peer on `id` accepted `ops_compact`: its tables start empty. Once per session.
    mutating func acceptCompactOps(_ id: Int) {
        guard sessions[id]?.compactOps == nil else { return }
        sessions[id]?.compactOps = CompactOpsWriter()
    }

    /// The live sessions whose peer has caught this node up (`caught_up` came), in table order.
    var syncedPeers: [Int] {
        table.compactMap { id, session in session.live && session.syncedUpTo != nil ? id : nil }
    }
}
