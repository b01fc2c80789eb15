import GalleryModel
import GalleryWire

/// How long received ops have been waiting in the causal buffer: the liveness loop's view of gaps
/// on live links (a lost `ops` frame leaves later ops waiting for what it carried).
struct GapWatch {
    /// How long ops may wait before the node asks its peers again (nanoseconds).
    let timeout: UInt64
    /// The longest wait between two requests while the same gap stays (nanoseconds).
    static let maximumInterval: UInt64 = 30_000_000_000
    /// Since when (uptime, nanoseconds) the buffer has held ops without emptying.
    var waitingSince: UInt64?
    /// When the node last asked its peers again.
    var lastRequest: UInt64 = 0
    /// The wait before the next request: `timeout`, doubled after each request while the gap
    /// stays, so that a gap no peer can fill costs little.
    var interval: UInt64 = 0

    init(timeout: UInt64) {
        self.timeout = timeout
        interval = timeout
    }
}

/// The periodic version exchange by digest (protocol.md, "Version exchange"): the requester sends
/// a digest of its version vector; a peer at the same vector learns that the requester holds
/// what it holds and says nothing; a peer at another vector answers `differs`. Vectors differ for
/// a moment whenever an op is on its way to one of the two (at 10 ops/s over a mesh, about one
/// exchange in eight), so the requester asks again, a second later, `confirmations` times; only
/// when every answer differs does it send its whole vector in a `sync_request`, answered as
/// always. A real gap is so filled within the interval and two seconds.
extension VersionDigest {
    /// Digests answered `differs` that are confirmed by another before the full exchange.
    static let confirmations = 2
    /// The wait before a confirming digest (nanoseconds).
    static let confirmationDelay: UInt64 = 1_000_000_000
}

/// The two ways the sessions find ops this node lacks without a reconnect: asking again when
/// received ops wait too long for their dependencies (gaps), and the periodic version exchange
/// (anti-entropy), by a digest of the vector to a peer that speaks `version_digest` (protocol.md,
/// "Version exchange"), else by the vector itself in a `sync_request`.
extension PeerSessions {
    /// Peers to send a fresh `sync_request`, because ops have waited for a dependency too long.
    struct GapRequest: Equatable {
        /// The connections to ask, in table order.
        var peers: [Int]
        /// Since when (uptime, nanoseconds) the buffer has held ops.
        var waitingSince: UInt64
    }

    /// The gap watch's look, with `buffered` ops waiting for dependencies at `now`: after they
    /// waited `GapWatch.timeout`, the peers to ask for what this node's vector lacks: every live
    /// peer that has finished its catch-up (one still sending it may be bringing what is missing),
    /// or every live peer when none has (its `caught_up` may be what was lost); `isConnected`
    /// tells which sessions still have their connection. Asks again while the gap stays, after
    /// the timeout, then twice as long each time (at most `GapWatch.maximumInterval`).
    mutating func checkGaps(buffered: Int, now: UInt64, isConnected: (Int) -> Bool) -> GapRequest? {
        guard buffered > 0 else {
            gaps.waitingSince = nil
            gaps.interval = gaps.timeout
            return nil
        }
        guard let since = gaps.waitingSince else {
            gaps.waitingSince = now
            return nil
        }
        guard now > since, now - since >= gaps.timeout, now - gaps.lastRequest >= gaps.interval else { return nil }
        if gaps.lastRequest > since { gaps.interval = min(gaps.interval * 2, GapWatch.maximumInterval) }
        gaps.lastRequest = now
        let live = sessions.compactMap { id, session -> (Int, Bool)? in
            guard session.live, isConnected(id) else { return nil }
            return (id, session.syncedUpTo != nil)
        }
        let synced = live.filter(\.1).map(\.0)
        return GapRequest(peers: synced.isEmpty ? live.map(\.0) : synced, waitingSince: since)
    }

    /// One peer due its periodic version exchange.
    struct VersionExchange: Equatable {
        /// The session's connection.
        var id: Int
        /// The peer speaks `version_digest`: it gets a digest, not the whole vector.
        var byDigest: Bool
    }

    /// The sessions due their version exchange at `now` (live, caught up, and `interval` since
    /// their last, or a `differs` to confirm), in connection order; nil when no session was
    /// written since the last look and none fell due by time (the scan is skipped). The node
    /// sends each (`versionExchangeSent`), then records the look (`lookedAtVersions`).
    func versionExchangesDue(now: UInt64, interval: UInt64) -> (due: [VersionExchange], nextDue: UInt64)? {
        guard versionLook.isDue(sessionsChanges: changes, total: 0, now: now) else { return nil }
        var nextDue = UInt64.max
        var due: [VersionExchange] = []
        for id in order {
            guard let session = sessions[id], session.live && session.syncedUpTo != nil else { continue }
            let at = session.digestConfirmAt ?? session.lastVersionSent &+ interval
            if now >= at && (session.digestConfirmAt != nil || now > session.lastVersionSent) {
                due.append(VersionExchange(id: id, byDigest: session.peerSpeaksDigests))
                nextDue = min(nextDue, now &+ interval)
            } else {
                nextDue = min(nextDue, at)
            }
        }
        return (due, nextDue)
    }

    /// The version exchange went to `exchange`'s peer at `now`. A regular digest starts a new
    /// round of confirmations; a confirmation keeps the misses counted.
    mutating func versionExchangeSent(_ exchange: VersionExchange, now: UInt64) {
        if exchange.byDigest {
            if sessions[exchange.id]?.digestConfirmAt == nil { sessions[exchange.id]?.digestMisses = 0 }
            sessions[exchange.id]?.digestConfirmAt = nil
        }
        sessions[exchange.id]?.lastVersionSent = now
    }

    /// The version exchange's scan ended (after its sends): the next is due at `nextDue`, or
    /// when a session is written.
    mutating func lookedAtVersions(nextDue: UInt64) {
        versionLook = Liveness.Look(sessionsChanges: changes, total: 0, nextDue: nextDue)
    }

    /// What the node does with a peer's `version_digest`.
    enum DigestReaction: Equatable {
        /// No session, or digests are off here: as if the frame type were unknown.
        case ignore
        /// `speaks`: the peer takes digests from now on.
        case noted
        /// The peer's digest is of another vector: answer `differs`.
        case answerDiffers
        /// The peer holds exactly what this node holds; `changed` when its `caught_up` vector
        /// moved to it (a peer change to publish).
        case matched(changed: Bool)
        /// A `differs`: ask again with a digest at the session's `digestConfirmAt`.
        case confirmLater
        /// `differs` after `VersionDigest.confirmations` confirmations: send the full `sync_request`.
        case requestFull
    }

    /// Takes a `version_digest` from the peer on `id`, this node holding `version` at `now`;
    /// `enabled` is `NodeConfiguration.versionDigests`.
    mutating func received(_ digest: VersionDigest, on id: Int, holding version: VersionVector, now: UInt64, enabled: Bool) -> DigestReaction {
        guard enabled, sessions[id] != nil else { return .ignore }
        sessions[id]?.peerSpeaksDigests = true
        switch digest {
        case .speaks:
            return .noted
        case .digest(let bytes):
            // The vectors differ: which side lacks what only the peer's vector can tell.
            guard bytes == VersionDigest.of(version) else { return .answerDiffers }
            // The peer holds exactly what this node holds: nothing to send it, nothing to ask.
            sessions[id]?.relay.learned(version)
            guard let synced = sessions[id]?.syncedUpTo, synced != version else { return .matched(changed: false) }
            sessions[id]?.syncedUpTo = version
            return .matched(changed: true)
        case .differs:
            guard var session = sessions[id] else { return .ignore }
            session.digestMisses += 1
            if session.digestMisses > VersionDigest.confirmations {
                // The vectors stayed apart: the full exchange.
                session.digestMisses = 0
                session.digestConfirmAt = nil
                sessions[id] = session
                return .requestFull
            }
            // Most often an op on its way to one of the two: ask again a moment later.
            session.digestConfirmAt = now + VersionDigest.confirmationDelay
            sessions[id] = session
            return .confirmLater
        }
    }
}
