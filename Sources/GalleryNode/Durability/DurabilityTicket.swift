import Foundation

/// What a `perform` waits on (or is called back by, `whenDone`): its ops durable, or the reason
/// they could not be stored.
///
/// `@unchecked Sendable`: its state is guarded by `condition`.
final class DurabilityTicket: @unchecked Sendable {
    private let condition = NSCondition()
    // Guarded by `condition`.
    private var done = false
    private var failure: String?
    private var callbacks: [@Sendable (String?) -> Void] = []

    /// The ops are durable.
    func succeed() {
        finish(nil)
    }

    /// The ops could not be stored, for `reason`.
    func fail(_ reason: String) {
        finish(reason)
    }

    /// Waits for the outcome: nil when durable, else why not.
    func wait() -> String? {
        condition.withLock {
            while !done { condition.wait() }
            return failure
        }
    }

    /// Calls `callback` with the outcome (nil when durable, else why not) once known: at once when
    /// it is, else on the thread that finishes the ticket (the node's loop: it must only hand over).
    func whenDone(_ callback: @escaping @Sendable (String?) -> Void) {
        let outcome = condition.withLock { () -> String?? in
            guard done else {
                callbacks.append(callback)
                return .none
            }
            return .some(failure)
        }
        if let outcome { callback(outcome) }
    }

    private func finish(_ reason: String?) {
        let waiting = condition.withLock { () -> [@Sendable (String?) -> Void] in
            guard !done else { return [] }
            done = true
            failure = reason
            condition.broadcast()
            defer { callbacks = [] }
            return callbacks
        }
        for callback in waiting { callback(reason) }
    }
}
