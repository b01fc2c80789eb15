import Foundation

/// The node's one typed event stream (`NodeEvent`): ops applied and durable, transfer progress,
/// peer state changes.
///
/// The node's loop publishes without ever waiting: each subscriber has its own bounded queue and
/// its own thread (`WorkThread`), on which its handler runs, in publication order. A subscriber
/// that falls `limit` events behind loses what is queued and gets one `.resyncNeeded` in its place
/// (then events again as they come), so that a slow subscriber costs the node a bounded amount of
/// memory and never slows it.
///
/// `@unchecked Sendable`: the subscriber table is guarded by `lock`.
package final class NodeEvents: @unchecked Sendable {
    /// One subscriber: its handler, queue and thread.
    final class Subscriber: @unchecked Sendable {
        let limit: Int
        let handler: @Sendable (NodeEvent) -> Void
        let worker: any NodeExecutor
        private let lock = NSLock()
        // Guarded by `lock`.
        private var queued: [NodeEvent] = []
        private var scheduled = false
        private var cancelled = false

        init(name: String, limit: Int, executor: (any NodeExecutor)?, handler: @escaping @Sendable (NodeEvent) -> Void) {
            self.limit = max(1, limit)
            self.handler = handler
            self.worker = executor ?? WorkThread(name: name, idleTimeout: 1)
        }

        /// Queues an event (or, over the limit, replaces the queue by `.resyncNeeded`).
        func publish(_ event: NodeEvent) {
            let schedule = lock.withLock { () -> Bool in
                guard !cancelled else { return false }
                if queued.count >= limit {
                    if case .resyncNeeded = queued.last { return false }
                    queued = [.resyncNeeded]
                } else {
                    queued.append(event)
                }
                guard !scheduled else { return false }
                scheduled = true
                return true
            }
            if schedule { worker.async { [self] in deliver() } }
        }

        /// Stops delivering.
        func cancel() {
            lock.withLock {
                cancelled = true
                queued = []
            }
        }

        private func deliver() {
            while true {
                let events = lock.withLock { () -> [NodeEvent] in
                    let events = cancelled ? [] : queued
                    queued = []
                    if events.isEmpty { scheduled = false }
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

    private let lock = NSLock()
    // Guarded by `lock`.
    private var subscribers: [Int: Subscriber] = [:]
    private var nextID = 0

    init() {}

    /// Calls `handler` with every event from now on, on a thread of the subscription's own (or
    /// on `executor`, a serial one, for a handler that never waits long), in order; at most `limit`
    /// events wait for it (then `.resyncNeeded`).
    @discardableResult
    package func subscribe(limit: Int = NodeEvents.defaultLimit, on executor: (any NodeExecutor)? = nil,
                           _ handler: @escaping @Sendable (NodeEvent) -> Void) -> Subscription {
        lock.withLock {
            nextID += 1
            subscribers[nextID] = Subscriber(name: "node-events-\(nextID)", limit: limit, executor: executor, handler: handler)
            return Subscription(id: nextID)
        }
    }

    /// Ends a subscription: no event is delivered to it once this returns, but one being delivered.
    package func unsubscribe(_ subscription: Subscription) {
        lock.withLock { subscribers.removeValue(forKey: subscription.id) }?.cancel()
    }

    /// Hands an event to every subscriber's queue; never waits.
    func publish(_ event: NodeEvent) {
        let current = lock.withLock { Array(subscribers.values) }
        for subscriber in current { subscriber.publish(event) }
    }

    /// Whether anyone listens (the node skips building events nobody reads).
    var isEmpty: Bool {
        lock.withLock { subscribers.isEmpty }
    }
}
