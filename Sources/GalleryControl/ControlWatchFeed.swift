import Foundation
import GalleryModel
import GalleryNode
import GalleryWire
import Synchronization

/// Where `watch` answers go: a control session (a test may record them instead).
protocol WatchSink: AnyObject, Sendable {
    /// Queues an answer; never waits for the client.
    func send(_ response: ControlResponse)
}

extension ControlSession: WatchSink {}

/// The `watch` sessions of a control socket, fed by one subscription to the node's event stream
/// (one subscriber thread for all of them, whatever their number, held only while someone
/// watches).
///
/// **What changed, not the gallery.** A watch is answered once with the listing, then with the
/// events of each batch of changes only: a change costs the node the same whatever the size of
/// the gallery. The feed follows the node's durable op sequence (`SyncNode.readDurable`) with a
/// cursor: each answer covers every op durable since the one before, read against the replica
/// as it stands after them, so that an event's `index` is a position after the whole answer and
/// a client that applies the answers in order (`WatchEvent`) holds the gallery as it is. The
/// node's events only say when to read: one dropped (`.resyncNeeded`, the feed fell behind)
/// loses nothing. A new watcher's listing is read at the cursor, under the same lock, so that
/// nothing falls between it and the first changes. Past `maximumCatchUp` ops in one answer the
/// listing is sent again instead, which a client takes as a new start.
final class ControlWatchFeed: Sendable {
    /// One `watch` request being served.
    private struct Watcher {
        let sink: any WatchSink
        /// The request's ID, repeated in every answer.
        let request: Int
        /// The gallery watched, nil for all.
        let gallery: String?
    }

    private let node: SyncNode
    private let eventLimit: Int
    private let maximumCatchUp: Int
    /// Serializes the node reads that move the cursor, so that answers go out in its order.
    private let advancing = NSLock()
    /// The durable op count the watchers have been told about (moved with `advancing` held).
    private let cursor = Mutex(0)
    /// The watchers and the subscription.
    private let lock = Mutex(Watchers())

    /// Who watches, and the node subscription while anyone does.
    private struct Watchers {
        var watchers: [Int: Watcher] = [:]
        var nextToken = 0
        var adding = 0
        var subscription: NodeEvents.Subscription?
    }

    /// A feed of `node`'s changes; `eventLimit` is how far its subscription may fall behind the
    /// node's events, `maximumCatchUp` the most ops one answer of changes covers.
    init(node: SyncNode, eventLimit: Int = NodeEvents.defaultLimit, maximumCatchUp: Int = 10_000) {
        self.node = node
        self.eventLimit = eventLimit
        self.maximumCatchUp = maximumCatchUp
    }

    /// Starts a watch of `gallery` (nil: every gallery): answers `request` with the listing, then
    /// with every batch of changes, until `remove` with the token returned; nil (nothing sent)
    /// when the gallery does not exist.
    func add(_ sink: any WatchSink, request: Int, gallery: String?) -> Int? {
        advancing.withLock {
            let fresh = lock.withLock { state -> Bool in
                state.adding += 1
                guard state.subscription == nil else { return false }
                state.subscription = node.events.subscribe(limit: eventLimit) { [weak self] event in self?.take(event) }
                return true
            }
            let transfers = node.transfers
            let (answers, listing) = node.readDurable { replica, durable in
                // Those already watching are told first what the new watcher's listing includes.
                let answers = fresh ? [:] : self.answers(upTo: durable, in: replica)
                return (answers, (try? ControlCommands.listings(replica, gallery: gallery, transfers: transfers)).map { ($0, durable) })
            }
            deliver(answers)
            if let (_, durable) = listing { cursor.withLock { $0 = durable } }
            return lock.withLock { state -> Int? in
                state.adding -= 1
                guard let (galleries, _) = listing else {
                    unsubscribeIfIdle(&state)
                    return nil
                }
                sink.send(ControlResponse(id: request, .galleries(galleries)))
                state.nextToken += 1
                state.watchers[state.nextToken] = Watcher(sink: sink, request: request, gallery: gallery)
                return state.nextToken
            }
        }
    }

    /// Stops a watch; the subscription ends with the last one.
    func remove(_ token: Int) {
        lock.withLock { state in
            state.watchers.removeValue(forKey: token)
            unsubscribeIfIdle(&state)
        }
    }

    /// Ends the subscription when nobody watches nor is about to (`state` is `lock`'s).
    private func unsubscribeIfIdle(_ state: inout Watchers) {
        guard state.watchers.isEmpty, state.adding == 0, let subscription = state.subscription else { return }
        node.events.unsubscribe(subscription)
        state.subscription = nil
    }

    /// One event of the node, on the subscription's thread.
    private func take(_ event: NodeEvent) {
        switch event {
        case .applied, .resyncNeeded:
            advancing.withLock {
                deliver(node.readDurable { replica, durable in answers(upTo: durable, in: replica) })
            }
        case .transferProgress(let progress):
            advancing.withLock {
                let answers = node.read { replica in
                    answersByGallery { WatchEvents.events(of: progress, in: replica, gallery: $0) }
                }
                deliver(answers.mapValues { .changes($0) })
            }
        case .peerChanged:
            break
        }
    }

    /// The answer of each gallery watched (nil: all) for the ops durable since `covered`, read
    /// against `replica`, which holds exactly `durable` of them; moves the cursor. Called with
    /// `advancing` held, on the node's loop.
    private func answers(upTo durable: Int, in replica: Replica) -> [String?: ControlReply] {
        let covered = cursor.withLock { $0 }
        guard durable > covered else { return [:] }
        defer { cursor.withLock { $0 = durable } }
        if durable - covered > maximumCatchUp {
            let transfers = node.transfers
            return answersByGallery { try? ControlCommands.listings(replica, gallery: $0, transfers: transfers) }.mapValues { .galleries($0) }
        }
        let ops = SyncNode.ops(from: covered, to: durable, in: replica)
        return answersByGallery { WatchEvents.events(of: ops, in: replica, gallery: $0) }.mapValues { .changes($0) }
    }

    /// `answer` of every gallery watched (nil: all), those nil or empty left out.
    private func answersByGallery<T: Collection>(_ answer: (String?) -> T?) -> [String?: T] {
        let galleries = Set(lock.withLock { $0.watchers.values.map(\.gallery) })
        var answers: [String?: T] = [:]
        for gallery in galleries {
            if let found = answer(gallery), !found.isEmpty { answers[gallery] = found }
        }
        return answers
    }

    /// Sends each watcher its gallery's answer. Caller holds `advancing`, so that answers go out
    /// in the order of the cursor.
    private func deliver(_ answers: [String?: ControlReply]) {
        guard !answers.isEmpty else { return }
        for watcher in lock.withLock({ Array($0.watchers.values) }) {
            if let reply = answers[watcher.gallery] { watcher.sink.send(ControlResponse(id: watcher.request, reply)) }
        }
    }
}
