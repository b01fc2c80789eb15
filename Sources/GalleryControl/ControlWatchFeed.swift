import Foundation
import GalleryModel
import GalleryNode
import GalleryWire

/// The `watch` sessions of a control socket, fed by one subscription to the node's event stream
/// (one subscriber thread for all of them, whatever their number, held only while someone
/// watches): each batch of changes is read against the replica once per gallery watched, and the
/// same events and listing go to every session watching that gallery. After `.resyncNeeded` (the
/// feed fell behind) every session gets the listing alone.
///
/// `@unchecked Sendable`: the watcher table and the subscription are guarded by `lock`.
final class ControlWatchFeed: @unchecked Sendable {
    /// One `watch` request being served.
    private struct Watcher {
        let session: ControlSession
        /// The request's ID, repeated in every answer.
        let request: Int
        /// The gallery watched, nil for all.
        let gallery: String?
    }

    private let node: SyncNode
    private let lock = NSLock()
    // Guarded by `lock`.
    private var watchers: [Int: Watcher] = [:]
    private var nextToken = 0
    private var subscription: NodeEvents.Subscription?

    init(node: SyncNode) {
        self.node = node
    }

    /// The listings `watch` sends, read on the node's loop; nil when the gallery does not exist.
    static func listing(_ gallery: String?, of node: SyncNode) -> [GalleryListing]? {
        let transfers = node.transfers
        return node.read { try? ControlCommands.listings($0, gallery: gallery, transfers: transfers) }
    }

    /// Sends `session` the changes of `gallery` (nil: every gallery) from now on, answering
    /// `request`, until `remove` with the token returned.
    func add(_ session: ControlSession, request: Int, gallery: String?) -> Int {
        lock.withLock {
            nextToken += 1
            watchers[nextToken] = Watcher(session: session, request: request, gallery: gallery)
            if subscription == nil {
                subscription = node.events.subscribe { [weak self] event in self?.deliver(event) }
            }
            return nextToken
        }
    }

    /// Stops a watch; the subscription ends with the last one.
    func remove(_ token: Int) {
        lock.withLock {
            watchers.removeValue(forKey: token)
            if watchers.isEmpty, let subscription {
                node.events.unsubscribe(subscription)
                self.subscription = nil
            }
        }
    }

    /// One event of the node, on the subscription's thread.
    private func deliver(_ event: NodeEvent) {
        let current = lock.withLock { Array(watchers.values) }
        for (gallery, group) in Dictionary(grouping: current, by: \.gallery) {
            let response: (Int) -> ControlResponse?
            switch event {
            case .applied(let ops):
                response = changes(gallery) { WatchEvents.events(of: ops, in: $0, gallery: gallery) }
            case .transferProgress(let progress):
                response = changes(gallery) { WatchEvents.events(of: progress, in: $0, gallery: gallery) }
            case .resyncNeeded:
                guard let listing = Self.listing(gallery, of: node) else { continue }
                response = { ControlResponse(id: $0, .galleries(listing)) }
            case .peerChanged:
                return
            }
            for watcher in group {
                if let answer = response(watcher.request) { watcher.session.send(answer) }
            }
        }
    }

    /// The answer for a batch of events read by `events`, with the listing after them (for a
    /// redrawn view); nil when nothing of `gallery` changed.
    private func changes(_ gallery: String?, _ events: @escaping (Replica) -> [WatchEvent]) -> (Int) -> ControlResponse? {
        let found = node.read { events($0) }
        guard !found.isEmpty else { return { _ in nil } }
        let listing = Self.listing(gallery, of: node)
        return { ControlResponse(id: $0, .changes(found, listing: listing)) }
    }
}
