import Foundation
import GalleryIO

/// What a `perform` waits on (or is called back by, `whenDone`): its ops durable, or the reason
/// they could not be stored.
final class DurabilityTicket: Sendable {
    /// Whether the outcome is known, the outcome, and who waits to be called with it.
    private struct State {
        var done = false
        var failure: String?
        var callbacks: [@Sendable (String?) -> Void] = []
    }

    private let state = ConditionLock(State())

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
        let outcome = state.withLock(waitingUntil: nil) { state -> String?? in state.done ? .some(state.failure) : .none }
        return outcome ?? nil
    }

    /// Calls `callback` with the outcome (nil when durable, else why not) once known: at once when
    /// it is, else on the thread that finishes the ticket (the node's loop: it must only hand over).
    func whenDone(_ callback: @escaping @Sendable (String?) -> Void) {
        let outcome = state.withLock { state -> String?? in
            guard state.done else {
                state.callbacks.append(callback)
                return .none
            }
            return .some(state.failure)
        }
        if let outcome { callback(outcome) }
    }

    private func finish(_ reason: String?) {
        let waiting = state.withLock { state -> [@Sendable (String?) -> Void] in
            guard !state.done else { return [] }
            state.done = true
            state.failure = reason
            defer { state.callbacks = [] }
            return state.callbacks
        }
        state.broadcast()
        for callback in waiting { callback(reason) }
    }
}
