import GalleryCrypto
import GalleryModel
import GalleryWire

/// Membership at the node (protocol.md, "Membership"): who may hold a session, joins by
/// invitation, member records passed on to every member, revocation and the new space key.
extension SyncNode {
    /// Decides, when `connection` authenticates, whether it may start a sync session. A revoked
    /// node is refused; a member that proved the previous space key is sent the new one, then
    /// closed; a newcomer with an invitation code is held for its `join_request` (no session, no
    /// op, no blob). On the connection's loop.
    func membershipAdmits(_ connection: Connection, _ peer: PeerIdentity) -> Bool {
        guard let membership = configuration.membership else { return peer.authority == .space }
        let key = peer.key.rawRepresentation
        if membership.isRevoked(nodeKey: key) {
            configuration.log("\(configuration.name): REVOKED node \(peer.nodeID) (\(peer.name)) refused (\(connection.remote))")
            connection.close(.authFailed, "node \(peer.nodeID) was revoked from this space")
            return false
        }
        switch peer.authority {
        case .space:
            _ = connection.send(.membership(.records(membership.records)))
            return true
        case .previousSpace:
            guard membership.isMember(nodeKey: key) else {
                configuration.log("\(configuration.name): node \(peer.nodeID) proved the previous space key but is no member: refused")
                connection.close(.authFailed, "an outdated space key, and node \(peer.nodeID) is not a member")
                return false
            }
            let keys = membership.keys
            _ = connection.send(.membership(.records(membership.records)))
            _ = connection.send(.membership(.spaceKey(secret: keys.secret, generation: keys.generation)))
            configuration.log("\(configuration.name): sent the space key of generation \(keys.generation) to \(peer.label), which had the previous one")
            connection.closeWhenSent("sent the new space key; redial with it")
            return false
        case .invitation(let id):
            if let refusal = membership.check(invitation: id, now: Timestamp.now) {
                configuration.log("\(configuration.name): JOIN REFUSED: \(peer.label) with invitation \(id): \(refusal)")
                connection.close(.authFailed, "\(refusal)")
            }
            return false
        }
    }

    /// A `membership` frame from `connection`. On the connection's loop.
    func received(_ message: MembershipMessage, from connection: Connection) {
        guard let membership = configuration.membership, let peer = connection.peer else { return }
        switch (message, peer.authority) {
        case (.joinRequest(let signingKey), .invitation(let id)):
            join(peer, signingKey: signingKey, invitation: id, on: connection, membership: membership)
        case (.records(let records), .space):
            loop.async { [self] in
                let added = membership.merge(records)
                if !added.isEmpty { membershipChanged(added, except: connection.id) }
            }
        case (.spaceKey(let secret, let generation), .space):
            loop.async { [self] in adopt(secret: secret, generation: generation, from: connection) }
        case (_, .space):
            connection.close(.protocolError, "a join message on a member's session")
        default:
            connection.close(.protocolError, "only a join_request is taken on a join connection")
        }
    }

    /// A newcomer with invitation `id` asks to join: the invitation is spent (on disk), the
    /// newcomer added, and it is sent the space's key, ID and records; then the connection closes.
    private func join(_ peer: PeerIdentity, signingKey: [UInt8], invitation id: String, on connection: Connection, membership: Membership) {
        let now = Timestamp.now
        guard (try? Ed25519.PublicKey(rawRepresentation: signingKey)) != nil else {
            connection.close(.protocolError, "the join_request's signing key is not a point of Ed25519")
            return
        }
        do {
            if let refusal = try membership.redeem(invitation: id, by: peer.nodeID, now: now) {
                configuration.log("\(configuration.name): JOIN REFUSED: \(peer.label) with invitation \(id): \(refusal)")
                connection.close(.authFailed, "\(refusal)")
                return
            }
        } catch {
            connection.close(.internalError, "the inviter cannot store the invitation: \(error)")
            return
        }
        let record = membership.admit(nodeKey: peer.key.rawRepresentation, signingKey: signingKey, name: peer.name, now: now)
        let keys = membership.keys
        _ = connection.send(.membership(.joinGrant(secret: keys.secret, generation: keys.generation, space: keys.space, records: membership.records)))
        configuration.log("\(configuration.name): JOINED: \(peer.label) with invitation \(id)")
        // The newcomer closes once it has the grant; its silence limit bounds a newcomer that does not.
        loop.async { [self] in membershipChanged([record], except: nil) }
    }

    /// Takes a space key a member sent when it replaces this node's, and passes it on. On the loop.
    private func adopt(secret: [UInt8], generation: UInt64, from connection: Connection) {
        guard let membership = configuration.membership else { return }
        do {
            guard try membership.adopt(secret: secret, generation: generation) else { return }
        } catch {
            configuration.log("\(configuration.name): cannot store the new space key: \(error)")
            return
        }
        configuration.log("\(configuration.name): took the space key of generation \(generation) from \(connection.peer?.label ?? "?")")
        sendSpaceKey(except: connection.id)
    }

    /// New records arrived or were made: closes the sessions of nodes they revoke, and passes
    /// the records on to every other member. On the loop.
    func membershipChanged(_ added: [MemberRecord], except source: Int?) {
        guard let membership = configuration.membership else { return }
        let revoked = Set(added.filter { $0.kind == .revoked }.map(\.nodeKey))
        for connection in connections.values {
            guard let peer = connection.peer else { continue }
            if revoked.contains(peer.key.rawRepresentation) {
                configuration.log("\(configuration.name): REVOKED: closing the connection of \(peer.label)")
                connection.close(.authFailed, "node \(peer.nodeID) was revoked from this space")
            } else if connection.id != source, sessions[connection.id] != nil, !membership.isRevoked(nodeKey: peer.key.rawRepresentation) {
                _ = connection.send(.membership(.records(added)))
            }
        }
        // Members stop dialing a revoked node (it would be refused at message 3 anyway).
        for record in added where record.kind == .revoked {
            if let node = record.nodeID, forgetOnLoop(node.rawValue) {
                configuration.log("\(configuration.name): forgot revoked node \(node): no longer dialed")
            }
        }
        notifyChange()
    }

    /// Sends the current space key to every member in session but `source`. On the loop.
    func sendSpaceKey(except source: Int?) {
        guard let membership = configuration.membership else { return }
        let keys = membership.keys
        for connection in connections.values where connection.id != source && sessions[connection.id] != nil {
            guard let peer = connection.peer, !membership.isRevoked(nodeKey: peer.key.rawRepresentation) else { continue }
            _ = connection.send(.membership(.spaceKey(secret: keys.secret, generation: keys.generation)))
        }
    }
}

extension Connection {
    /// Closes once every frame queued so far has been handed to the channel (whose close writes
    /// what it holds first): a join's grant, a new space key, are not dropped by the close.
    func closeWhenSent(_ reason: String) {
        outbox.whenBelow(1) { [weak self] in self?.close(nil, reason) }
    }
}
