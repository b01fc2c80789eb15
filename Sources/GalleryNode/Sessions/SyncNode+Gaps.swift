import Foundation
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

extension SyncNode {
    /// When ops have waited for missing dependencies for `gapTimeout`, sends a fresh
    /// `sync_request` to every peer that has finished its catch-up (protocol.md, "Sync"): each
    /// answers with what this node's version vector lacks, which fills the gap without a reconnect.
    /// Peers still sending their catch-up are not asked (what is missing may be on its way), unless
    /// no peer has finished its catch-up.
    /// Asks again while the gap stays, after `gapTimeout`, then twice as long each time (at most
    /// `GapWatch.maximumInterval`). On the loop.
    func checkForGaps(_ watch: inout GapWatch, now: UInt64) {
        let buffered = replica.bufferedCount
        guard buffered > 0 else {
            watch.waitingSince = nil
            watch.interval = watch.timeout
            return
        }
        guard let since = watch.waitingSince else {
            watch.waitingSince = now
            return
        }
        guard now > since, now - since >= watch.timeout, now - watch.lastRequest >= watch.interval else { return }
        if watch.lastRequest > since { watch.interval = min(watch.interval * 2, GapWatch.maximumInterval) }
        watch.lastRequest = now
        let live = sessions.compactMap { id, session -> (Connection, Bool)? in
            guard session.live, let connection = connections[id] else { return nil }
            return (connection, session.syncedUpTo != nil)
        }
        // Peers still sending their catch-up may be bringing what is missing: ask the others, or
        // every live peer when none has finished (its `caught_up` may be what was lost).
        let synced = live.filter(\.1).map(\.0)
        let peers = synced.isEmpty ? live.map(\.0) : synced
        let missing = replica.missingDependencies
        for connection in peers { requestCatchUp(from: connection) }
        let named = missing.prefix(3).map(\.description).joined(separator: ", ") + (missing.count > 3 ? ", ..." : "")
        throttledLog("gap", "\(configuration.name): \(buffered) ops have waited \((now - since) / 1_000_000) ms for \(named); "
            + "asking \(peers.count) peers again")
    }

    /// Anti-entropy: on every session whose peer has caught it up and that has not carried one for
    /// `versionExchangeInterval`, asks the peer for whatever this node's version vector lacks.
    /// To a peer that speaks `version_digest`, a 16-byte digest of the vector: the peer answers
    /// only when its own vector differs (`differs`), so the exchange of two nodes holding the same
    /// ops costs the same whatever the number of replicas; after `VersionDigest.confirmations`
    /// further digests a second apart also differ, this node sends its `sync_request`
    /// (`SyncNode+VersionDigest`). To others, the `sync_request` itself (answered by the ops lacking, usually
    /// none, and `caught_up`). A lost frame that no later op depends on is filled within the
    /// interval (or two). On the loop.
    func exchangeVersions(now: UInt64) {
        let interval = UInt64(max(configuration.versionExchangeInterval.nanoseconds, 1_000_000))
        // The sessions are scanned only when one was written or one's exchange falls due.
        guard liveness.versionLook.isDue(sessionsChanges: sessionsChanges, total: 0, now: now) else { return }
        var nextDue = UInt64.max
        var due: [(id: Int, session: Session)] = []
        for id in sessionOrder {
            guard let session = sessions[id], session.live && session.syncedUpTo != nil else { continue }
            let at = session.digestConfirmAt ?? session.lastVersionSent &+ interval
            if now >= at && (session.digestConfirmAt != nil || now > session.lastVersionSent) {
                due.append((id, session))
                nextDue = min(nextDue, now &+ interval)
            } else {
                nextDue = min(nextDue, at)
            }
        }
        defer { liveness.versionLook = LivenessState.Look(sessionsChanges: sessionsChanges, total: 0, nextDue: nextDue) }
        guard !due.isEmpty else { return }
        let digest = due.contains { $0.session.peerSpeaksDigests } ? VersionDigest.of(replica.version) : nil
        for (id, session) in due {
            guard let connection = connections[id] else { continue }
            if session.peerSpeaksDigests, let digest {
                connection.send(.versionDigest(.digest(digest)))
                relayCountsOnLoop.digestsSent += 1
                // A regular digest starts a new round; a confirmation keeps the misses counted.
                if session.digestConfirmAt == nil { sessions[id]?.digestMisses = 0 }
                sessions[id]?.digestConfirmAt = nil
            } else {
                requestCatchUp(from: connection)
                relayCountsOnLoop.fullExchangesSent += 1
            }
            sessions[id]?.lastVersionSent = now
        }
    }
}
