import GalleryIO
import GalleryWire

/// Peers' static keys: pinning per dialed address, conflicts per name (protocol.md, "Node identity").
extension SyncNode {
    /// This node's ID: a digest of its static public key.
    package var nodeID: NodeID { settings.nodeID }

    /// Records the key `peer` proved on `connection`; a name known under another key is reported
    /// on the log and in `status`, and the peer is kept apart (it is another node). On the loop.
    func recordKey(of peer: PeerIdentity, on connection: Connection) {
        if let conflict = peerKeys.record(peer, dialed: connection.dialed) {
            configuration.log("\(configuration.name): IDENTITY CONFLICT: \(conflict) (\(connection.remote))")
        }
    }

    /// The node a dial to `endpoint` means to reach: the one the address book says listens there
    /// (kept across restarts), else the one that answered there before while this node runs. Nil
    /// for an address no node has answered at yet (the first handshake there is trusted). On the loop.
    func expectedNode(at endpoint: Endpoint?) -> NodeID? {
        guard let endpoint else { return nil }
        if let owner = addresses.book.owner(of: endpoint.description), let node = NodeID(rawValue: owner.rawValue) {
            return node
        }
        return configuration.pins[endpoint] ?? peerKeys.pinned[endpoint]
    }

    /// A dialed address presented another key than the one it had: the dial was refused.
    func connectionRefusedIdentity(_ connection: Connection, reason: String) {
        loop.async { [self] in
            let conflict = "\(connection.dialed?.description ?? connection.remote): \(reason): refused"
            peerKeys.report(conflict)
            configuration.log("\(configuration.name): IDENTITY MISMATCH, refused: \(conflict) "
                + "(if that node was set up anew, `gallery forget` its old node ID)")
            notifyChange()
        }
    }
}
