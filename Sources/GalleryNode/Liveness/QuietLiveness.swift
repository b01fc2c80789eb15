/// The slower liveness of two nodes that both offer it in their `features` (protocol.md, section
/// 10): an idle link carries a sealed heartbeat every `heartbeatInterval` instead of every second,
/// and a peer is dropped after `peerTimeout` of silence. A host that vanishes (power, network) is
/// found sooner by the kernel's TCP keep-alive, which costs the process nothing; a process that
/// hangs with its host up is found by the silence limit.
package struct QuietLiveness: Sendable, Equatable {
    /// A heartbeat goes to a peer that offered quiet liveness after this long without sending.
    package var heartbeatInterval: Duration
    /// A peer this node offered quiet liveness to is dropped after this long of silence.
    package var peerTimeout: Duration

    /// What `gallery serve` uses: a heartbeat after 20 s of quiet, a peer dropped after 60 s
    /// (three heartbeats missed).
    package static let standard = QuietLiveness(heartbeatInterval: .seconds(20), peerTimeout: .seconds(60))

    package init(heartbeatInterval: Duration, peerTimeout: Duration) {
        self.heartbeatInterval = heartbeatInterval
        self.peerTimeout = peerTimeout
    }
}
