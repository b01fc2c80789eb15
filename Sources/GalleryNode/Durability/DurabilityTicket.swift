import Foundation

/// What a `perform` waits on: its ops durable, or the reason they could not be stored.
///
/// `@unchecked Sendable`: its state is guarded by `condition`.
final class DurabilityTicket: @unchecked Sendable {
    private let condition = NSCondition()
    // Guarded by `condition`.
    private var done = false
    private var failure: String?

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

    private func finish(_ reason: String?) {
        condition.withLock {
            guard !done else { return }
            done = true
            failure = reason
            condition.broadcast()
        }
    }
}
