import Foundation
import GalleryIO
import GalleryWire

/// The node's connections (`PeerRegistry`): holding one just made, keeping one per pair of nodes,
/// and taking inbound ones: admission before anything is made for a connection, and backing off
/// (shedding unauthenticated connections first) when the process runs out of descriptors. The
/// transport's listener asks this policy for every link and every accept error.
extension SyncNode {
    /// Holds a connection just made: the node's connections and liveness's deadlines (it is
    /// looked at on the next pass). On the loop.
    func hold(_ connection: Connection) {
        peerRegistry.hold(connection, dialedAt: connection.dialed?.description)
        liveness.due(connection.id, at: clock.now)
        notifyChange()
    }

    /// One connection per pair of nodes (`PeerRegistry.duplicateCloses`): closes the connections
    /// the rule drops now that `connection` authenticated as `peer`. False when that is
    /// `connection` itself. On the loop.
    func keepOneConnection(_ connection: Connection, to peer: PeerIdentity) -> Bool {
        let keepOutbound = settings.nodeID < peer.nodeID
        for close in peerRegistry.duplicateCloses(for: connection, peer: peer, keepOutbound: keepOutbound) {
            switch close {
            case .this:
                connection.close(.duplicateConnection, "already connected to \(peer.label)")
                return false
            case .other(let id):
                connections[id]?.close(.duplicateConnection, "replaced by a connection from the preferred side")
            }
        }
        return true
    }

    /// The longest pause between accept attempts while descriptors are exhausted.
    static let maximumAcceptBackoff: UInt64 = 1_000_000_000
    /// The first pause after an accept failed for want of descriptors.
    static let minimumAcceptBackoff: UInt64 = 10_000_000

    /// The admission check of an accepted connection: its place when admitted (an older
    /// unauthenticated connection may be closed to make room), to be filled (`admitted`) or freed
    /// (`release`) once the node has made the connection or not; else `close` is called at once
    /// (nothing made for it) and the refusal logged (throttled).
    func admit(_ remote: String, close: () -> Void) -> AdmissionController.Ticket? {
        let group = AdmissionController.addressGroup(ofHost: AdmissionController.host(of: remote))
        switch admission.decision(for: group) {
        case .admit(let ticket):
            return ticket
        case .admitEvicting(let ticket, let evicted):
            evicted.close(.internalError, "too many unauthenticated connections: the oldest of the most crowded address goes")
            throttledLog("evicted", "\(configuration.name): closed an unauthenticated connection from \(evicted.remote) to let \(remote) in")
            return ticket
        case .refuse(let refusal):
            close()
            throttledLog("refused", "\(configuration.name): refused a connection from \(remote): \(refusal)")
            return nil
        }
    }

    /// After a failed accept: at the descriptor limit, sheds the oldest unauthenticated
    /// connection. Returns how long to pause accepting: short after a shed (its descriptor is free
    /// as soon as its error frame is out), else doubling from `previous` up to a second.
    func acceptBackoff(after error: TransportError, previous: UInt64) -> UInt64 {
        let growing = min(max(previous * 2, Self.minimumAcceptBackoff), Self.maximumAcceptBackoff)
        guard case .descriptorsExhausted(let reason) = error else {
            throttledLog("accept", "\(configuration.name): accept failed: \(error.localizedDescription)")
            return growing
        }
        let shed = admission.shedOldest(reason: "the node is out of descriptors: try again later")
        throttledLog("exhausted", "\(configuration.name): accept failed: \(reason); "
            + (shed ? "shed the oldest unauthenticated connection" : "no unauthenticated connection to shed, pausing"))
        return shed ? Self.minimumAcceptBackoff : growing
    }
}
