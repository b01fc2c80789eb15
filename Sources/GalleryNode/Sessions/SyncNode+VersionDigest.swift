import GalleryWire

/// The periodic version exchange by digest (protocol.md, "Version exchange"): the requester sends
/// a digest of its version vector; a peer at the same vector learns that the requester holds
/// what it holds and says nothing; a peer at another vector answers `differs`. Vectors differ for
/// a moment whenever an op is on its way to one of the two (at 10 ops/s over a mesh, about one
/// exchange in eight), so the requester asks again, a second later, `confirmations` times; only
/// when every answer differs does it send its whole vector in a `sync_request`, answered as
/// always. A real gap is so filled within the interval and two seconds. All on the loop.
extension VersionDigest {
    /// Digests answered `differs` that are confirmed by another before the full exchange.
    static let confirmations = 2
    /// The wait before a confirming digest (nanoseconds).
    static let confirmationDelay: UInt64 = 1_000_000_000
}

extension SyncNode {
    /// Takes a `version_digest` from a peer. A node configured without digests ignores it, like
    /// a node that does not know the frame type.
    func receive(_ digest: VersionDigest, from connection: Connection) {
        guard configuration.versionDigests, sessions[connection.id] != nil else { return }
        sessions[connection.id]?.peerSpeaksDigests = true
        switch digest {
        case .speaks:
            break
        case .digest(let bytes):
            let version = replica.version
            guard bytes == VersionDigest.of(version) else {
                // The vectors differ: which side lacks what only the peer's vector can tell.
                connection.send(.versionDigest(.differs))
                relayCountsOnLoop.digestsDiffered += 1
                return
            }
            // The peer holds exactly what this node holds: nothing to send it, nothing to ask.
            sessions[connection.id]?.relay.learned(version)
            if let synced = sessions[connection.id]?.syncedUpTo, synced != version {
                sessions[connection.id]?.syncedUpTo = version
                publishPeerChange(connection)
            }
        case .differs:
            guard var session = sessions[connection.id] else { return }
            session.digestMisses += 1
            if session.digestMisses > VersionDigest.confirmations {
                // The vectors stayed apart: the full exchange. The peer answers with what this
                // node's vector lacks, then `caught_up`.
                session.digestMisses = 0
                session.digestConfirmAt = nil
                sessions[connection.id] = session
                requestCatchUp(from: connection)
                relayCountsOnLoop.fullExchangesSent += 1
            } else {
                // Most often an op on its way to one of the two: ask again a moment later.
                session.digestConfirmAt = clock.now + VersionDigest.confirmationDelay
                sessions[connection.id] = session
            }
        }
    }
}
