import Foundation
import GalleryModel
import GalleryWire

/// Commands from the command line, taken on the local control socket (`ControlServer`) only.
extension SyncNode {
    /// Takes one `control_request` from a control session: refuses it when it is malformed, when
    /// it waited too long to be read, or when every command slot is taken; otherwise carries it
    /// out on its own thread, so that the session's reader keeps taking heartbeats meanwhile.
    func takeControlRequest(_ json: [UInt8], from session: ControlSession) {
        guard let request = try? JSONDecoder().decode(ControlRequest.self, from: Data(json)) else {
            session.send(ControlResponse(id: 0, ok: false, error: "malformed control request"))
            return
        }
        if let sent = request.sent {
            let waited = Date().timeIntervalSince1970 - sent
            if waited > ControlServer.stalenessLimit {
                session.send(ControlResponse(
                    id: request.id, ok: false,
                    error: "the request waited \(Int(waited)) s before the node could read it; nothing was done"))
                return
            }
        }
        let admitted = condition.withLock { () -> Bool in
            guard runningCommands < Self.maximumRunningCommands else { return false }
            runningCommands += 1
            return true
        }
        guard admitted else {
            session.send(ControlResponse(
                id: request.id, ok: false,
                error: "the node is busy: \(Self.maximumRunningCommands) commands running; nothing was done"))
            return
        }
        session.commandStarted()
        Thread.detachNewThread { [self] in
            control(request, for: session)
            session.commandFinished()
            condition.withLock { runningCommands -= 1 }
        }
    }

    /// Carries out one command and answers it.
    private func control(_ request: ControlRequest, for session: ControlSession) {
        switch request.command {
        case "watch":
            startWatch(request, for: session)
        case "drag" where request.wait == true:
            dragAndWait(request, for: session)
        default:
            session.send(ControlCommands.execute(request, on: self))
        }
    }

    /// `watch`: answers with the current listing, then sends the events of every batch of changes
    /// (with the listing after them, for a redrawn view) until the session ends. Fed by the node's
    /// event stream, on the subscription's own thread: the listing is read from the loop, and
    /// encoded and sent off it. After `.resyncNeeded` (the session fell behind) it sends the
    /// listing alone.
    private func startWatch(_ request: ControlRequest, for session: ControlSession) {
        let gallery = request.gallery
        let listing: @Sendable (SyncNode) -> [GalleryListing]? = { [transfers] node in
            node.read { try? ControlCommands.listings($0, gallery: gallery, transfers: transfers) }
        }
        guard let first = listing(self) else {
            session.send(ControlResponse(id: request.id, ok: false, error: "no gallery named \"\(gallery ?? "")\""))
            return
        }
        session.send(ControlResponse(id: request.id, ok: true, galleries: first))
        let subscription = events.subscribe { [weak self] event in
            guard let self else { return }
            let events: [WatchEvent]
            switch event {
            case .applied(let ops):
                events = read { WatchEvents.events(of: ops, in: $0, gallery: gallery) }
            case .transferProgress(let progress):
                events = read { WatchEvents.events(of: progress, in: $0, gallery: gallery) }
            case .resyncNeeded:
                session.send(ControlResponse(id: request.id, ok: true, galleries: listing(self)))
                return
            case .peerChanged:
                return
            }
            guard !events.isEmpty else { return }
            session.send(ControlResponse(id: request.id, ok: true, galleries: listing(self), events: events))
        }
        session.onEnd { [events] in events.unsubscribe(subscription) }
    }

    /// `drag --wait`: answers with what the drop did, then once more when every transfer it
    /// started has ended, with their outcomes.
    private func dragAndWait(_ request: ControlRequest, for session: ControlSession) {
        let drops: [DropListing]
        do {
            drops = try DropCommand.execute(request, on: self)
        } catch {
            session.send(ControlResponse(id: request.id, ok: false, error: error.localizedDescription))
            return
        }
        session.send(ControlResponse(id: request.id, ok: true, drops: drops))
        let ids = drops.compactMap { $0.transfer.flatMap(OpID.init) }
        let finish: @Sendable ([OpID: TransferOutcome]) -> Void = { outcomes in
            let ended = drops.map { drop -> DropListing in
                var drop = drop
                drop.outcome = drop.transfer.flatMap(OpID.init).map { outcomes[$0]?.description ?? "unknown" } ?? drop.action
                return drop
            }
            session.send(ControlResponse(id: request.id, ok: true, drops: ended))
        }
        if let transfers { transfers.whenEnded(ids, finish) } else { finish([:]) }
    }
}
