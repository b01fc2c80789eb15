/// Capped exponential backoff with jitter for reconnecting to a peer.
///
/// Attempt n waits a random time in [d/2, d] where d = min(initial * 2^n, maximum), so that
/// nodes that lost each other at the same moment do not retry in lockstep.
package struct Backoff: Hashable, Sendable {
    /// The delay before the first retry.
    package var initial: Duration
    /// The longest delay.
    package var maximum: Duration

    package init(initial: Duration = .milliseconds(100), maximum: Duration = .seconds(5)) {
        self.initial = initial
        self.maximum = maximum
    }

    /// The delay before retry number `attempt` (from 0).
    package func delay(attempt: Int, using generator: inout some RandomNumberGenerator) -> Duration {
        let ceiling = min(initial * (1 << min(attempt, 30)), maximum)
        let nanoseconds = max(ceiling.nanoseconds, 1)
        return .nanoseconds(Int64.random(in: (nanoseconds / 2)...nanoseconds, using: &generator))
    }
}
