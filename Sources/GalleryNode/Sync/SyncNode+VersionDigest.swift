import GalleryModel
import GalleryWire

/// The periodic version exchange by digest (protocol.md, "Version exchange"): the requester sends
/// a digest of its version vector; a peer at the same vector learns that the requester holds
/// what it holds and says nothing; a peer at another vector answers `differs`, and the requester
/// then sends its whole vector in a `sync_request`, answered as always. All on the loop.
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
            // The full exchange: the peer answers with what this node's vector lacks, then `caught_up`.
            requestCatchUp(from: connection)
        }
    }
}
