import GalleryModel
import GalleryWire

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

    package var replica: Replica {
        _read { assertOnLoop(); yield _replica }
        _modify {
            assertOnLoop()
            wakeLiveness()
            yield &_replica
        }
    }

    /// The connections component.
    var peerRegistry: PeerRegistry {
        _read { assertOnLoop(); yield _peerRegistry }
        _modify {
            assertOnLoop()
            wakeLiveness()
            yield &_peerRegistry
        }
    }

    /// The connections by ID (`PeerRegistry.connections`).
    var connections: [Int: Connection] {
        _read { yield peerRegistry.connections }
        _modify { yield &peerRegistry.connections }
    }

    /// The sessions component. A write that changed a session wakes liveness.
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

    /// What the liveness pass carries from one run to the next.
    var liveness: Liveness {
        _read { assertOnLoop(); yield _liveness }
        _modify { assertOnLoop(); yield &_liveness }
    }

    /// The node's storage faults and refused ops (`StorageHealth`).
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

    /// The keys of peers: pinned per dialed address, and per name (`PeerKeyBook`).
    var peerKeys: PeerKeyBook {
        _read { assertOnLoop(); yield _peerKeys }
        _modify { assertOnLoop(); yield &_peerKeys }
    }

    /// What is durable, and the batches, commands and progress waiting for it (`Durability`).
    var durability: Durability {
        _read { assertOnLoop(); yield _durability }
        _modify {
            assertOnLoop()
            wakeLiveness()
            yield &_durability
        }
    }

    /// Where this node stands in the mesh's relay tree (`SyncNode+Relay`).
    var relayTree: RelayTree {
        _read { assertOnLoop(); yield _relayTree }
        _modify { assertOnLoop(); yield &_relayTree }
    }

    /// The address book, the redials and gossip (`PeerDirectory`).
    var addresses: PeerDirectory {
        _read { assertOnLoop(); yield _addresses }
        _modify {
            assertOnLoop()
            wakeLiveness()
            yield &_addresses
        }
    }

    /// What the relay received and sent (`SyncNode+Relay`).
    var relayCountsOnLoop: RelayCounts {
        _read { assertOnLoop(); yield _relayCountsOnLoop }
        _modify { assertOnLoop(); yield &_relayCountsOnLoop }
    }

    /// Durable ops waiting for the next relay flush (`SyncNode+RelayHold`).
    var relayHold: RelayHold {
        _read { assertOnLoop(); yield _relayHold }
        _modify { assertOnLoop(); yield &_relayHold }
    }
}
