import Foundation
import Synchronization

/// The node's one typed event stream (`NodeEvent`): ops applied and durable, transfer progress,
/// peer state changes.
///
/// The node's loop publishes without ever waiting: each subscriber has its own bounded queue and
/// its own thread (`WorkThread`), on which its handler runs, in publication order. A subscriber
/// that falls `limit` events behind loses what is queued and gets one `.resyncNeeded` in its place
/// (then events again as they come), so that a slow subscriber costs the node a bounded amount of
/// memory and never slows it.
package final class NodeEvents: Sendable {
    /// One subscriber: its handler, queue and thread.
    final class Subscriber: Sendable {
        /// The queue and whether a delivery is scheduled or the subscription ended.
        private struct Queue {
            var queued: [NodeEvent] = []
            var scheduled = false
            var cancelled = false
        }

        let limit: Int
        let handler: @Sendable (NodeEvent) -> Void
        let worker: any NodeExecutor
        private let queue = Mutex(Queue())

        init(name: String, limit: Int, executor: (any NodeExecutor)?, handler: @escaping @Sendable (NodeEvent) -> Void) {
            self.limit = max(1, limit)
            self.handler = handler
            self.worker = executor ?? WorkThread(name: name, idleTimeout: 1)
        }

        /// Queues an event (or, over the limit, replaces the queue by `.resyncNeeded`).
        func publish(_ event: NodeEvent) {
            let schedule = queue.withLock { queue -> Bool in
                guard !queue.cancelled else { return false }
                if queue.queued.count >= limit {
                    if case .resyncNeeded = queue.queued.last { return false }
                    queue.queued = [.resyncNeeded]
                } else {
                    queue.queued.append(event)
                }
                guard !queue.scheduled else { return false }
                queue.scheduled = true
                return true
            }
            if schedule { worker.async { [self] in deliver() } }
        }

        /// Stops delivering.
        func cancel() {
            queue.withLock { queue in
                queue.cancelled = true
                queue.queued = []
            }
        }

        private func deliver() {
            while true {
                let events = queue.withLock { queue -> [NodeEvent] in
                    let events = queue.cancelled ? [] : queue.queued
                    queue.queued = []
                    if events.isEmpty { queue.scheduled = false }
                    return events
                }
                if events.isEmpty { return }
                for event in events { handler(event) }
            }
        }
    }

    /// A subscription; `cancel()` (or `NodeEvents.unsubscribe`) ends it.
    package struct Subscription: Hashable, Sendable {
        /// The subscription's number, unique within its node.
        package let id: Int
    }

    /// The events a subscriber may fall behind by before it gets `.resyncNeeded`.
    package static let defaultLimit = 4_096

    /// The subscribers by number, and the last number given.
    private let table = Mutex<(subscribers: [Int: Subscriber], nextID: Int)>(([:], 0))

    init() {}

    /// Calls `handler` with every event from now on, on a thread of the subscription's own (or
    /// on `executor`, a serial one, for a handler that never waits long), in order; at most `limit`
    /// events wait for it (then `.resyncNeeded`).
    @discardableResult
    package func subscribe(limit: Int = NodeEvents.defaultLimit, on executor: (any NodeExecutor)? = nil,
                           _ handler: @escaping @Sendable (NodeEvent) -> Void) -> Subscription {
        table.withLock { table in
            table.nextID += 1
            let id = table.nextID
            table.subscribers[id] = Subscriber(name: "node-events-\(id)", limit: limit, executor: executor, handler: handler)
            return Subscription(id: id)
        }
    }

    /// Ends a subscription: no event is delivered to it once this returns, but one being delivered.
    package func unsubscribe(_ subscription: Subscription) {
        table.withLock { $0.subscribers.removeValue(forKey: subscription.id) }?.cancel()
    }

    /// Hands an event to every subscriber's queue; never waits.
    func publish(_ event: NodeEvent) {
        let current = table.withLock { Array($0.subscribers.values) }
        for subscriber in current { subscriber.publish(event) }
    }

    /// Whether anyone listens (the node skips building events nobody reads).
    var isEmpty: Bool {
        table.withLock { $0.subscribers.isEmpty }
    }
}
