/// The conditions of every simulated link: one-way latency with jitter, bandwidth.
package struct LinkConditions: Sendable, Hashable {
    /// The one-way latency (nanoseconds).
    package var latency: UInt64
    /// Up to this much is added to each transmission's latency, drawn per link (nanoseconds):
    /// frames on different links overtake each other, never on one link (TCP keeps order).
    package var jitter: UInt64
    /// Bytes per second each direction of a link carries.
    package var bandwidth: UInt64

    package init(latency: UInt64 = 10_000_000, jitter: UInt64 = 2_000_000, bandwidth: UInt64 = 12_500_000) {
        self.latency = latency
        self.jitter = jitter
        self.bandwidth = max(1, bandwidth)
    }
}
