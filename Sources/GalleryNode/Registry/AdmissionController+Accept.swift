import GalleryIO

/// The listener's side of admission: the check of each accepted link before anything is made for
/// it, and the pause after a failed accept (shedding the oldest unauthenticated connection first
/// when the process ran out of descriptors). Refusals and failures go to the throttled log.
extension AdmissionController {
    /// The longest pause between accept attempts while descriptors are exhausted.
    static let maximumAcceptBackoff: UInt64 = 1_000_000_000
    /// The first pause after an accept failed for want of descriptors.
    static let minimumAcceptBackoff: UInt64 = 10_000_000

    /// The admission check of a link accepted from `remote`: its place when admitted (an older
    /// unauthenticated connection may be closed to make room), to be filled (`admitted`) or freed
    /// (`release`) once the node has made the connection or not; else `close` is called at once
    /// (nothing made for it) and the refusal logged (throttled). `node` names the node in the log.
    func admit(_ remote: String, node: String, log: ThrottledLog, close: () -> Void) -> Ticket? {
        let group = Self.addressGroup(ofHost: Self.host(of: remote))
        switch decision(for: group) {
        case .admit(let ticket):
            return ticket
        case .admitEvicting(let ticket, let evicted):
            evicted.close(.internalError, "too many unauthenticated connections: the oldest of the most crowded address goes")
            log("evicted", "\(node): closed an unauthenticated connection from \(evicted.remote) to let \(remote) in")
            return ticket
        case .refuse(let refusal):
            close()
            log("refused", "\(node): refused a connection from \(remote): \(refusal)")
            return nil
        }
    }

    /// After a failed accept: at the descriptor limit, sheds the oldest unauthenticated
    /// connection. Returns how long to pause accepting: short after a shed (its descriptor is free
    /// as soon as its error frame is out), else doubling from `previous` up to a second.
    func acceptBackoff(after error: TransportError, previous: UInt64, node: String, log: ThrottledLog) -> UInt64 {
        let growing = min(max(previous * 2, Self.minimumAcceptBackoff), Self.maximumAcceptBackoff)
        guard case .descriptorsExhausted(let reason) = error else {
            log("accept", "\(node): accept failed: \(error.localizedDescription)")
            return growing
        }
        let shed = shedOldest(reason: "the node is out of descriptors: try again later")
        log("exhausted", "\(node): accept failed: \(reason); "
            + (shed ? "shed the oldest unauthenticated connection" : "no unauthenticated connection to shed, pausing"))
        return shed ? Self.minimumAcceptBackoff : growing
    }
}
