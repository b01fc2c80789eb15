import Foundation
#if canImport(Glibc)
import Glibc
#endif
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

        /// Reads what a quiet-liveness node sends a raw peer until it closes the connection, with
        /// the peer offering quiet liveness (`features` bit 1) or not.
        private func quietNodeConversation(peerOffersQuiet: Bool) throws -> (messages: [Message], elapsed: Duration) {
            let secret = Array("quiet".utf8)
            var configuration = NodeConfiguration(
                name: "node", secret: secret, heartbeatInterval: .milliseconds(100), peerTimeout: .milliseconds(600), log: .silent)
            configuration.quiet = QuietLiveness(heartbeatInterval: .milliseconds(1_500), peerTimeout: .milliseconds(2_500))
            let node = SyncNode(configuration: configuration, replica: Replica(id: ReplicaID(deriving: "node")))
            try node.start()
            defer { node.stop() }
            let streams = try Connector.connect(to: node.endpoint!)
            defer { streams.close() }
            var raw = RawPeer(streams)
            try raw.authenticate(HandshakeSettings(secret: secret, staticKey: X25519.PrivateKey(), replica: ReplicaID(98), name: "quiet"))
            if peerOffersQuiet { raw.send(.features(.quietLiveness)) }
            let start = ContinuousClock.now
            #if os(Linux)
            // The node's end of this connection (accepted on its event loop) has TCP keep-alive on.
            #expect(Self.keepAliveOfAcceptedSocket(port: node.endpoint!.port) == 1)
            #endif
            var received: [Message] = []
            while let message = try raw.receiveOrEnd() { received.append(message) }
            return (received, ContinuousClock.now - start)
        }

        #if os(Linux)
        /// `SO_KEEPALIVE` of this process's connected socket whose local port is `port`, if any.
        static func keepAliveOfAcceptedSocket(port: UInt16) -> Int32? {
            for fd in Int32(3)..<Int32(4_096) {
                var address = sockaddr_in()
                var length = socklen_t(MemoryLayout<sockaddr_in>.size)
                let named = withUnsafeMutablePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
                }
                guard named == 0, address.sin_family == sa_family_t(AF_INET), UInt16(bigEndian: address.sin_port) == port else { continue }
                var peer = sockaddr_in()
                var peerLength = socklen_t(MemoryLayout<sockaddr_in>.size)
                let connected = withUnsafeMutablePointer(to: &peer) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(fd, $0, &peerLength) }
                }
                guard connected == 0 else { continue }
                var value: Int32 = -1
                var size = socklen_t(MemoryLayout<Int32>.size)
                guard getsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &value, &size) == 0 else { continue }
                return value
            }
            return nil
        }
        #endif

        @Test("Quiet liveness: a peer that offers it gets a heartbeat only after the quiet interval, and its silence is taken for the longer limit")
        func quietPeerGetsFewHeartbeats() throws {
            let (received, elapsed) = try quietNodeConversation(peerOffersQuiet: true)
            let heartbeats = received.filter { $0 == .heartbeat }.count
            #expect(received.contains { if case .features(let bits) = $0 { bits.contains(.quietLiveness) } else { false } },
                    "the node offers quiet liveness")
            // 100 ms heartbeats would make about 25 in 2.5 s; quiet ones, one per 1.5 s of quiet
            // (and perhaps one sent before the peer's features arrived).
            let quietOnes = Int(elapsed / .milliseconds(1_500))
            #expect(heartbeats <= quietOnes + 1, "\(heartbeats) heartbeats in \(elapsed)")
            #expect(elapsed >= .milliseconds(2_400) && elapsed < .seconds(8), "dropped after \(elapsed), not after the 600 ms limit")
            guard case .error(.timeout, _)? = received.last else {
                Issue.record("ended with \(String(describing: received.last))")
                return
            }
        }

        @Test("Quiet liveness: a peer that does not offer it still gets a heartbeat every interval")
        func peerWithoutQuietKeepsHeartbeats() throws {
            let (received, elapsed) = try quietNodeConversation(peerOffersQuiet: false)
            let heartbeats = received.filter { $0 == .heartbeat }.count
            // The node offered quiet liveness, so it takes the peer's silence for 2.5 s; its own
            // heartbeats keep the one-interval pace the peer expects.
            #expect(heartbeats >= 10, "\(heartbeats) heartbeats in \(elapsed)")
            #expect(elapsed >= .milliseconds(2_400), "\(elapsed)")
        }

        @Test("Quiet liveness: an idle node's passes slow to one a second, and the next change brings the usual pace back at once")
        func idlePassesSlowDown() throws {
            let secret = Array("quiet pace".utf8)
            var configuration = NodeConfiguration(
                name: "node", secret: secret, heartbeatInterval: .milliseconds(200), peerTimeout: .seconds(1), log: .silent)
            configuration.quiet = QuietLiveness(heartbeatInterval: .seconds(20), peerTimeout: .seconds(60))
            let node = SyncNode(configuration: configuration, replica: Replica(id: ReplicaID(deriving: "pace")))
            try node.start()
            defer { node.stop() }
            let streams = try Connector.connect(to: node.endpoint!)
            defer { streams.close() }
            var raw = RawPeer(streams)
            try raw.authenticate(HandshakeSettings(secret: secret, staticKey: X25519.PrivateKey(), replica: ReplicaID(97), name: "quiet"))
            raw.send(.features(.quietLiveness))
            // Settled: at the usual pace (a pass each 20 ms) 2 s would hold 100 passes.
            let settled = Date().addingTimeInterval(10)
            var idle = Int.max
            while Date() < settled {
                let before = node.livenessPasses
                Thread.sleep(forTimeInterval: 2)
                idle = node.livenessPasses - before
                if idle <= 4 { break }
            }
            #expect(idle <= 4, "\(idle) passes in 2 s while idle")
            // A change on the loop: the next pass comes within the usual interval (20 ms), not a
            // second later. Three times, each from the slow pace (a slowed pass falling within
            // 250 ms by chance, three times in a row, is under 2%).
            var waits: [TimeInterval] = []
            for round in 0..<3 {
                let slowed = Date().addingTimeInterval(5)
                while Date() < slowed {
                    let before = node.livenessPasses
                    Thread.sleep(forTimeInterval: 1.2)
                    if node.livenessPasses - before <= 2 { break }
                }
                let before = node.livenessPasses
                let changed = Date()
                _ = try node.perform { try $0.createGallery("wake \(round)") }
                while node.livenessPasses == before && Date().timeIntervalSince(changed) < 2 { usleep(2_000) }
                waits.append(Date().timeIntervalSince(changed))
            }
            #expect(waits.allSatisfy { $0 < 0.25 },
                    "the first pass after a change came after \(waits.map { String(format: "%.3f s", $0) })")
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
