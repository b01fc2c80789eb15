import GalleryCrypto
import GalleryModel
import GalleryWire

/// Membership at the node (protocol.md, "Membership"): who may hold a session, joins by
/// invitation, member records passed on to every member, revocation and the new space key. It
/// decides on each authenticated connection and each `membership` frame on the connection's
/// event loop, sending and closing there; what needs the node's connections and sessions is
/// returned as a `Followup` that the node carries out on its loop (`apply`), handing over the
/// connections and which of them are in session.
final class MembershipExchange: Sendable {
    /// The space's members, keys and invitations, on disk.
    let membership: Membership
    /// The node's name, for its log lines.
    let node: String
    let log: NodeLog

    init(membership: Membership, node: String, log: NodeLog) {
        self.membership = membership
        self.node = node
        self.log = log
    }

    /// What the node does on its loop after a membership frame or command.
    enum Followup: Sendable {
        /// A member sent records: the new ones are kept and passed on to every other member.
        case merge([MemberRecord], from: Int)
        /// A member sent the space key that replaces this node's: it is taken and passed on.
        case adopt(secret: [UInt8], generation: UInt64, from: Connection)
        /// A newcomer joined: its record goes to every member.
        case joined(MemberRecord)
        /// This node revoked a member: its record and the new space key go to every member.
        case revoked(MemberRecord)
    }

    /// Decides, when `connection` authenticates as `peer`, whether it may start a sync session.
    /// A revoked node is refused; a member that proved the previous space key is sent the new
    /// one, then closed; a newcomer with an invitation code is held for its `join_request` (no
    /// session, no op, no blob). On the connection's loop.
    func admits(_ connection: Connection, _ peer: PeerIdentity) -> Bool {
        let key = peer.key.rawRepresentation
        if membership.isRevoked(nodeKey: key) {
            log("\(node): REVOKED node \(peer.nodeID) (\(peer.name)) refused (\(connection.remote))")
            connection.close(.authFailed, "node \(peer.nodeID) was revoked from this space")
            return false
        }
        switch peer.authority {
        case .space:
            _ = connection.send(.membership(.records(membership.records)))
            return true
        case .previousSpace:
            guard membership.isMember(nodeKey: key) else {
                log("\(node): node \(peer.nodeID) proved the previous space key but is no member: refused")
                connection.close(.authFailed, "an outdated space key, and node \(peer.nodeID) is not a member")
                return false
            }
            let keys = membership.keys
            _ = connection.send(.membership(.records(membership.records)))
            _ = connection.send(.membership(.spaceKey(secret: keys.secret, generation: keys.generation)))
            log("\(node): sent the space key of generation \(keys.generation) to \(peer.label), which had the previous one")
            connection.closeWhenSent("sent the new space key; redial with it")
            return false
        case .invitation(let id):
            if let refusal = membership.check(invitation: id, now: Timestamp.now) {
                log("\(node): JOIN REFUSED: \(peer.label) with invitation \(id): \(refusal)")
                connection.close(.authFailed, "\(refusal)")
            }
            return false
        }
    }

    /// Whether `connection` is listed among the node's peers (`peers`, `status`, the page): not
    /// when it authenticated as a revoked node. Such a connection is refused as soon as it
    /// authenticates (`admits`), and a member's is closed when it is revoked, but either stays
    /// held until its channel has closed: a revoked node is never shown as a peer meanwhile,
    /// whenever it redials. A connection still in its handshake is listed without a name.
    func lists(_ connection: Connection) -> Bool {
        guard let peer = connection.peer else { return true }
        return !membership.isRevoked(nodeKey: peer.key.rawRepresentation)
    }

    /// A `membership` frame from `connection`: a join is answered here; what the node's loop must
    /// do is returned. On the connection's loop.
    func received(_ message: MembershipMessage, from connection: Connection) -> Followup? {
        guard let peer = connection.peer else { return nil }
        switch (message, peer.authority) {
        case (.joinRequest(let signingKey), .invitation(let id)):
            return join(peer, signingKey: signingKey, invitation: id, on: connection).map { .joined($0) }
        case (.records(let records), .space):
            return .merge(records, from: connection.id)
        case (.spaceKey(let secret, let generation), .space):
            return .adopt(secret: secret, generation: generation, from: connection)
        case (_, .space):
            connection.close(.protocolError, "a join message on a member's session")
        default:
            connection.close(.protocolError, "only a join_request is taken on a join connection")
        }
        return nil
    }

    /// A newcomer with invitation `id` asks to join: the invitation is spent (on disk), the
    /// newcomer added, and it is sent the space's key, ID and records; its record is returned.
    /// The newcomer closes once it has the grant; its silence limit bounds a newcomer that does not.
    private func join(_ peer: PeerIdentity, signingKey: [UInt8], invitation id: String, on connection: Connection) -> MemberRecord? {
        let now = Timestamp.now
        guard (try? Ed25519.PublicKey(rawRepresentation: signingKey)) != nil else {
            connection.close(.protocolError, "the join_request's signing key is not a point of Ed25519")
            return nil
        }
        do {
            if let refusal = try membership.redeem(invitation: id, by: peer.nodeID, now: now) {
                log("\(node): JOIN REFUSED: \(peer.label) with invitation \(id): \(refusal)")
                connection.close(.authFailed, "\(refusal)")
                return nil
            }
        } catch {
            connection.close(.internalError, "the inviter cannot store the invitation: \(error)")
            return nil
        }
        let record = membership.admit(nodeKey: peer.key.rawRepresentation, signingKey: signingKey, name: peer.name, now: now)
        let keys = membership.keys
        _ = connection.send(.membership(.joinGrant(secret: keys.secret, generation: keys.generation, space: keys.space, records: membership.records)))
        log("\(node): JOINED: \(peer.label) with invitation \(id)")
        return record
    }

    /// Carries out `followup` on the node's loop, over the node's `connections` (`inSession`
    /// tells those whose sync session began). Returns the nodes revoked (the node stops dialing
    /// them) and whether the members changed.
    func apply(_ followup: Followup, connections: [Connection], inSession: (Int) -> Bool) -> (revoked: [NodeID], changed: Bool) {
        switch followup {
        case .merge(let records, let source):
            let added = membership.merge(records)
            guard !added.isEmpty else { return ([], false) }
            return (changed(added, except: source, connections: connections, inSession: inSession), true)
        case .adopt(let secret, let generation, let connection):
            do {
                guard try membership.adopt(secret: secret, generation: generation) else { return ([], false) }
            } catch {
                log("\(node): cannot store the new space key: \(error)")
                return ([], false)
            }
            log("\(node): took the space key of generation \(generation) from \(connection.peer?.label ?? "?")")
            sendSpaceKey(except: connection.id, connections: connections, inSession: inSession)
            return ([], false)
        case .joined(let record):
            return (changed([record], except: nil, connections: connections, inSession: inSession), true)
        case .revoked(let record):
            let revoked = changed([record], except: nil, connections: connections, inSession: inSession)
            sendSpaceKey(except: nil, connections: connections, inSession: inSession)
            return (revoked, true)
        }
    }

    /// New records arrived or were made: closes the connections of nodes they revoke, and passes
    /// the records on to every other member in session. Returns the nodes they revoke.
    private func changed(_ added: [MemberRecord], except source: Int?, connections: [Connection], inSession: (Int) -> Bool) -> [NodeID] {
        let revoked = Set(added.filter { $0.kind == .revoked }.map(\.nodeKey))
        for connection in connections {
            guard let peer = connection.peer else { continue }
            if revoked.contains(peer.key.rawRepresentation) {
                log("\(node): REVOKED: closing the connection of \(peer.label)")
                connection.close(.authFailed, "node \(peer.nodeID) was revoked from this space")
            } else if connection.id != source, inSession(connection.id), !membership.isRevoked(nodeKey: peer.key.rawRepresentation) {
                _ = connection.send(.membership(.records(added)))
            }
        }
        return added.filter { $0.kind == .revoked }.compactMap(\.nodeID)
    }

    /// Sends the current space key to every member in session but `source`.
    private func sendSpaceKey(except source: Int?, connections: [Connection], inSession: (Int) -> Bool) {
        let keys = membership.keys
        for connection in connections where connection.id != source && inSession(connection.id) {
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
