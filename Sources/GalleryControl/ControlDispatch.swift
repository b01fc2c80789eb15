import Foundation
import GalleryModel
import GalleryNode
import GalleryWire
import Synchronization

/// Carries out the commands a node takes on its local control socket (`ControlServer`), and only
/// those: decodes each request on a command thread, admits it against the command slots, runs it
/// on the node, and answers the session. The slots are its own state; the node knows nothing of
/// the command line.
package final class ControlDispatch: Sendable {
    /// The command slots in use.
    package struct Slots: Sendable {
        /// Threads carrying out a command (those that only read included).
        package var threads = 0
        /// Commands that change something being carried out.
        package var running = 0
    }

    /// The most commands that change something carried out at once; more are refused as busy.
    package static let maximumRunningCommands = 64
    /// The most command threads at once: the command slots, and as many for commands that only
    /// read (which take no slot); a request beyond is refused as busy.
    package static let maximumCommandThreads = 2 * maximumRunningCommands

    private let node: SyncNode
    /// The threads that carry out commands, parked between them.
    private let threads: CommandThreads
    /// The slots in use (tests fill them to see a busy node refuse).
    package let slots = Mutex(Slots())

    init(node: SyncNode, threads: CommandThreads = CommandThreads()) {
        self.node = node
        self.threads = threads
    }

    /// Takes one `control_request` from a control session (on the session's event loop): hands
    /// it to a thread of `threads` (parked between commands), which decodes it and carries it out,
    /// so that neither a large request nor a long command holds up the loop's other connections,
    /// and the session's reader keeps taking heartbeats meanwhile. At most
    /// `maximumCommandThreads` at once: beyond, the request is refused as busy.
    func take(_ json: [UInt8], from session: ControlSession) {
        let started = slots.withLock { slots -> Bool in
            guard slots.threads < Self.maximumCommandThreads else { return false }
            slots.threads += 1
            return true
        }
        guard started else {
            session.send(ControlResponse(
                id: ControlRequest.identifier(ofMalformed: json),
                refused: "the node is busy: \(Self.maximumCommandThreads) commands running; nothing was done"))
            return
        }
        session.commandStarted()
        threads.run { [self] in
            carryOut(json, for: session)
            session.commandFinished()
            slots.withLock { $0.threads -= 1 }
        }
    }

    /// Decodes a request and carries it out, on its command thread: refuses it when it is
    /// malformed, when it waited too long to be read, or when it changes something and every
    /// command slot is taken.
    private func carryOut(_ json: [UInt8], for session: ControlSession) {
        let request: ControlRequest
        do {
            request = try JSONDecoder().decode(ControlRequest.self, from: Data(json))
        } catch {
            session.send(ControlResponse(id: ControlRequest.identifier(ofMalformed: json), refused: ControlRequest.problem(with: error)))
            return
        }
        if let sent = request.sent {
            let waited = Date().timeIntervalSince1970 - sent
            if waited > ControlServer.stalenessLimit {
                session.send(ControlResponse(
                    id: request.id, refused: "the request waited \(Int(waited)) s before the node could read it; nothing was done"))
                return
            }
        }
        // Commands that only read take no slot: they cannot be locked out by commands that wait.
        let takesSlot = !request.command.onlyReads
        let admitted = !takesSlot || slots.withLock { slots -> Bool in
            guard slots.running < Self.maximumRunningCommands else { return false }
            slots.running += 1
            return true
        }
        guard admitted else {
            session.send(ControlResponse(
                id: request.id, refused: "the node is busy: \(Self.maximumRunningCommands) commands running; nothing was done"))
            return
        }
        control(request, for: session)
        if takesSlot { slots.withLock { $0.running -= 1 } }
    }

    /// Carries out one command and answers it.
    private func control(_ request: ControlRequest, for session: ControlSession) {
        switch request.command {
        case .watch(let gallery):
            startWatch(gallery, id: request.id, for: session)
        case .drag(let drag) where drag.wait:
            dragAndWait(drag, id: request.id, for: session)
        default:
            let result = Result { try ControlCommands.execute(request.command, on: node) }
            session.send(ControlResponse(id: request.id, result: result.mapError { ControlRefusal($0.localizedDescription) }))
        }
    }

    /// `watch`: answers with the current listing, then with the events of every batch of changes
    /// (never the listing again, unless the watcher fell too far behind) until the session ends,
    /// from the control socket's one feed of the node's events (`ControlWatchFeed`).
    private func startWatch(_ gallery: String?, id: Int, for session: ControlSession) {
        let watches = session.watches
        guard let token = watches.add(session, request: id, gallery: gallery) else {
            session.send(ControlResponse(id: id, refused: "no gallery named \"\(gallery ?? "")\""))
            return
        }
        session.onEnd { watches.remove(token) }
    }

    /// `drag --wait`: answers with what the drop did, then once more when every transfer it
    /// started has ended, with their outcomes.
    private func dragAndWait(_ request: DragRequest, id: Int, for session: ControlSession) {
        let drops: [DropListing]
        do {
            drops = try Drop.perform(request, on: node)
        } catch {
            session.send(ControlResponse(id: id, refused: error.localizedDescription))
            return
        }
        session.send(ControlResponse(id: id, .drops(drops)))
        let ids = drops.compactMap { $0.transfer.flatMap(OpID.init) }
        let finish: @Sendable ([OpID: TransferOutcome]) -> Void = { outcomes in
            let ended = drops.map { drop -> DropListing in
                var drop = drop
                drop.outcome = drop.transfer.flatMap(OpID.init).map { outcomes[$0]?.description ?? "unknown" } ?? drop.action.rawValue
                return drop
            }
            session.send(ControlResponse(id: id, .drops(ended)))
        }
        if let transfers = node.transfers { transfers.whenEnded(ids, finish) } else { finish([:]) }
    }
}
