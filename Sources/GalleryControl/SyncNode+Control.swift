import Foundation
import GalleryNode
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
    /// (with the listing after them, for a redrawn view) until the session ends.
    private func startWatch(_ request: ControlRequest, for session: ControlSession) {
        let observer = condition.withLock { () -> Int? in
            guard let first = try? ControlCommands.listings(replica, gallery: request.gallery, transfers: transfers) else {
                session.send(ControlResponse(id: request.id, ok: false, error: "no gallery named \"\(request.gallery ?? "")\""))
                return nil
            }
            session.send(ControlResponse(id: request.id, ok: true, galleries: first))
            nextObserverID += 1
            observers[nextObserverID] = { [transfers] ops, replica in
                let events = WatchEvents.events(of: ops, in: replica, gallery: request.gallery)
                guard !events.isEmpty else { return }
                let listing = try? ControlCommands.listings(replica, gallery: request.gallery, transfers: transfers)
                session.send(ControlResponse(id: request.id, ok: true, galleries: listing, events: events))
            }
            progressObservers[nextObserverID] = { [transfers] progress, replica in
                let events = WatchEvents.events(of: progress, in: replica, gallery: request.gallery)
                guard !events.isEmpty else { return }
                let listing = try? ControlCommands.listings(replica, gallery: request.gallery, transfers: transfers)
                session.send(ControlResponse(id: request.id, ok: true, galleries: listing, events: events))
            }
            return nextObserverID
        }
        guard let observer else { return }
        session.onEnd { [self] in
            condition.withLock {
                observers[observer] = nil
                progressObservers[observer] = nil
            }
        }
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
