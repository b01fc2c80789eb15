import Foundation
import GalleryIO
import GalleryWire

/// Taking inbound connections: admission before anything is made for a connection, and backing
/// off (shedding unauthenticated connections first) when the process runs out of descriptors.
/// The transport's listener asks this policy for every link and every accept error.
extension SyncNode {
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
