import Foundation
import GalleryCrypto
import GalleryIO
import GalleryModel
import GalleryNode
import GallerySimulation
import GalleryTestSupport
import GalleryWire
import Testing

extension NodeSuites {
    /// Heartbeats, timeouts and reconnection backoff.
    @Suite("Liveness")
    struct LivenessTests {
        @Test("Backoff doubles from its initial delay up to its cap, with jitter in [d/2, d]")
        func backoffBounds() {
            let backoff = Backoff(initial: .milliseconds(100), maximum: .seconds(5))
            var generator = SeededGenerator(seed: 7)
            var seen = Set<Duration>()
            for attempt in 0..<12 {
                let ceiling = min(Duration.milliseconds(100) * (1 << attempt), .seconds(5))
                for _ in 0..<50 {
                    let delay = backoff.delay(attempt: attempt, using: &generator)
                    #expect(delay <= ceiling && delay >= ceiling / 2, "attempt \(attempt): \(delay)")
                    seen.insert(delay)
                }
            }
            #expect(seen.count > 100, "delays are jittered")
            #expect(backoff.delay(attempt: 1_000, using: &generator) <= .seconds(5))
        }

        @Test("An authenticated peer that goes silent is dropped with a timeout error")
        func silentPeerIsDropped() throws {
            let secret = Array("liveness".utf8)
            let node = SyncNode(
                configuration: NodeConfiguration(
                    name: "node", secret: secret, heartbeatInterval: .milliseconds(100),
                    peerTimeout: .milliseconds(600), log: .silent),
                replica: Replica(id: ReplicaID(deriving: "node")))
            try node.start()
            defer { node.stop() }

            // A raw client that completes the handshake, then never sends another byte.
            let streams = try Connector.connect(to: node.endpoint!)
            defer { streams.close() }
            var raw = RawPeer(streams)
            try raw.authenticate(HandshakeSettings(secret: secret, staticKey: X25519.PrivateKey(), replica: ReplicaID(99), name: "mute"))
            let start = ContinuousClock.now
            // Everything the node sends until it closes: its sync request, heartbeats, then the error.
            var received: [Message] = []
            while let message = try raw.receiveOrEnd() { received.append(message) }
            let elapsed = ContinuousClock.now - start
            #expect(received.contains(.heartbeat), "an idle connection gets heartbeats")
            #expect(received.last == .error(code: .timeout, message: received.last.flatMap {
                if case .error(_, let text) = $0 { text } else { nil }
            } ?? ""))
            #expect(elapsed >= .milliseconds(500) && elapsed < .seconds(5), "\(elapsed)")
        }

        @Test("Heartbeats keep two idle nodes connected well past the timeout")
        func heartbeatsKeepIdleConnectionsAlive() throws {
            let cluster = try TestCluster(["a", "b"], peers: [1: [0]], peerTimeout: .milliseconds(400))
            defer { cluster.stop() }
            cluster.expectConvergence()
            #expect(cluster.nodes[1].waitForPeers(timeout: .seconds(5)) { $0.first?.state == .live })
            // Idle for three timeouts: only heartbeats flow, and the connection stays.
            let connected = cluster.nodes[1].peers.map(\.address)
            Thread.sleep(forTimeInterval: 1.2)
            #expect(cluster.nodes[1].peers.map(\.address) == connected)
            #expect(cluster.logged("timeout").isEmpty)
        }
    }
}
