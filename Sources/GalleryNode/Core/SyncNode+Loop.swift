import GalleryModel
import GalleryWire

/// The loop's side of the coordinator: the accessors of the state the loop owns, and what the loop
/// does with what its components return (signatures, durability, the relay hold, liveness).
///
/// Every access to the loop's state checks, in debug builds, that it runs on the node's loop: the
/// replica and the components are confined to the inbox, and a call from an event loop or a
/// command's thread that forgot to hop is caught where it happens, not as a rare race. A write to
/// the replica, the connections, the sessions, durability or the addresses also wakes a node
/// whose liveness passes slowed down while nothing was due (`wakeLiveness`).
extension SyncNode {
    /// Stops a debug build when the caller is not on the node's loop.
    @inline(__always)
    func assertOnLoop(_ function: StaticString = #function) {
        assert(loop.isCurrent, "\(function) touches the loop's state off the loop")
    }

    // MARK: The loop's state (each documented at its stored property, `SyncNode`)

    package var replica: Replica {
        _read { assertOnLoop(); yield _replica }
        _modify { assertOnLoop(); wakeLiveness(); yield &_replica }
    }
    var peerRegistry: PeerRegistry {
        _read { assertOnLoop(); yield _peerRegistry }
        _modify { assertOnLoop(); wakeLiveness(); yield &_peerRegistry }
    }
    /// The connections by ID (`PeerRegistry.connections`).
    var connections: [Int: Connection] {
        _read { yield peerRegistry.connections }
        _modify { yield &peerRegistry.connections }
    }
    /// A write that changed a session wakes liveness.
    var peerSessions: PeerSessions {
        _read { assertOnLoop(); yield _peerSessions }
        _modify {
            assertOnLoop()
            let before = _peerSessions.changes
            yield &_peerSessions
            if _peerSessions.changes != before { wakeLiveness() }
        }
    }
    /// The sessions by connection ID (`PeerSessions.sessions`): every write counts in `sessionsChanges`.
    var sessions: [Int: PeerSessions.Session] {
        _read { yield peerSessions.sessions }
        _modify { yield &peerSessions.sessions }
    }
    /// The keys of `sessions`, ascending, kept as sessions begin and end.
    var sessionOrder: [Int] { peerSessions.order }
    /// How many times `sessions` was written.
    var sessionsChanges: UInt64 { peerSessions.changes }
    var liveness: Liveness {
        _read { assertOnLoop(); yield _liveness }
        _modify { assertOnLoop(); yield &_liveness }
    }
    var storageHealth: StorageHealth {
        _read { assertOnLoop(); yield _storageHealth }
        _modify { assertOnLoop(); yield &_storageHealth }
    }
    /// Why ops cannot be stored right now (a full disk, a read-only directory), if so: local
    /// changes are refused, and nothing more is sent to peers until storing works again.
    package var storageFault: String? {
        _read { assertOnLoop(); yield _storageHealth.fault }
        _modify { assertOnLoop(); yield &_storageHealth.fault }
    }
    var peerKeys: PeerKeyBook {
        _read { assertOnLoop(); yield _peerKeys }
        _modify { assertOnLoop(); yield &_peerKeys }
    }
    var durability: Durability {
        _read { assertOnLoop(); yield _durability }
        _modify { assertOnLoop(); wakeLiveness(); yield &_durability }
    }
    var relayTree: RelayTree {
        _read { assertOnLoop(); yield _relayTree }
        _modify { assertOnLoop(); yield &_relayTree }
    }
    var addresses: PeerDirectory {
        _read { assertOnLoop(); yield _addresses }
        _modify { assertOnLoop(); wakeLiveness(); yield &_addresses }
    }
    var relayCountsOnLoop: RelayCounts {
        _read { assertOnLoop(); yield _relayCountsOnLoop }
        _modify { assertOnLoop(); yield &_relayCountsOnLoop }
    }
    var relayHold: RelayHold {
        _read { assertOnLoop(); yield _relayHold }
        _modify { assertOnLoop(); yield &_relayHold }
    }

    // MARK: Signed ops (protocol.md, "Signed ops"; `Replica+Signatures`)

    /// The ops of a frame from `connection` that may go to the replica now (those whose
    /// signature is checked, or will be when their predecessor arrives). When one is forged the
    /// connection is closed, and what its author's signatures cover before it is all that is
    /// given back. On the loop.
    func checkSignatures(_ ops: [Op], from connection: Connection) -> [Op] {
        guard let checked = replica.checkSignatures(frame: ops, from: connection.id) else { return ops }
        if let (op, reason) = checked.forged { reportForgedOp(op.id, reason: reason, on: [connection]) }
        return checked.ops
    }

    /// Reports the held ops the replica refused as forged when their predecessors arrived, and
    /// closes the connections that sent them. On the loop.
    func reportForgedHeldOps() {
        for forged in replica.takeForgedHeldOps() {
            guard case .forgedOp(let id, let reason) = forged.error else { continue }
            reportForgedOp(id, reason: reason, on: forged.sources.compactMap { connections[$0] })
        }
    }

    /// Logs a forged op and closes the connections that sent it with `forged_op`.
    func reportForgedOp(_ id: OpID, reason: String, on senders: [Connection]) {
        for connection in senders {
            configuration.log("\(configuration.name): FORGED OP \(id) from \(connection.peer?.label ?? connection.remote): "
                + "\(reason); refused, connection closed")
            connection.close(.forgedOp, "op \(id) is not signed by its replica's key: \(reason)")
        }
    }

    /// `Replica.countingUnsignedReplicasAsHeld`: what a catch-up's version leaves out. On the loop.
    func withoutUnsignedReplicas(_ version: VersionVector) -> VersionVector {
        replica.countingUnsignedReplicasAsHeld(version)
    }

    /// Logs, once per peer and replica, a catch-up batch to `connection` that carries every
    /// signature of `replicas`' ops because their last one does not cover this node's log (a log
    /// damaged or forged on disk). On the loop.
    func reportUncoveredCatchUp(_ replicas: [ReplicaID], to connection: Connection) {
        let peer = connection.peer?.label ?? connection.remote
        for uncovered in replica.firstUncoveredCatchUps(replicas, to: peer) {
            configuration.log("\(configuration.name): SIGNATURES DO NOT COVER THIS NODE'S LOG: replica \(uncovered) "
                + "(a damaged or forged log); its catch-up to \(peer) carries every signature this node holds for it, "
                + "so that the peer takes the ops they cover and refuses the rest (logged once per peer and replica)")
        }
    }

    /// Forgets the ops a closed connection left waiting for a signature. On the loop.
    func forgetUnsignedTail(of connection: Connection) {
        replica.forgetUnsignedTail(of: connection.id)
    }
}
