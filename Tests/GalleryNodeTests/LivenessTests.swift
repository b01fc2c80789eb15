import Foundation
import GalleryIO
import GalleryModel
import GalleryNode
import GallerySimulation
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
            var handshake = ClientHandshake(settings: HandshakeSettings(secret: secret, replica: ReplicaID(99), name: "mute"))
            raw.send(handshake.hello)
            guard case .send(let auth) = try handshake.receive(try raw.receive()) else { Issue.record("no welcome"); return }
            raw.send(auth)
            guard case .done = try handshake.receive(try raw.receive()) else { Issue.record("no auth_ok"); return }
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

/// Frames over raw streams, for tests that play a peer by hand.
struct RawPeer {
    let streams: StreamPair
    private var decoder = FrameDecoder(maximumPayload: Int(FrameLimits.maximum))
    /// Whether the handshake is over (`auth_ok` sent or received): frames carry a checksum trailer.
    private var sealed = false

    init(_ streams: StreamPair) {
        self.streams = streams
    }

    mutating func send(_ message: Message) {
        let bytes = message.frame.encoded(checksummed: sealed)
        if case .authOK = message { seal() }
        streams.output.writeAll(bytes)
    }

    /// Switches both ways to checksummed frames.
    private mutating func seal() {
        sealed = true
        decoder.checksummed = true
    }

    /// The next message; throws at the end of the stream.
    mutating func receive() throws -> Message {
        guard let message = try receiveOrEnd() else { throw WireError.unexpected("end of stream") }
        return message
    }

    /// The next message, or nil at the end of the stream.
    mutating func receiveOrEnd() throws -> Message? {
        var buffer = [UInt8](repeating: 0, count: 4_096)
        while true {
            if let frame = try decoder.next() {
                let message = try Message(frame: frame)
                if case .authOK = message { seal() }
                return message
            }
            let count = buffer.withUnsafeMutableBufferPointer { streams.input.read($0.baseAddress!, maxLength: $0.count) }
            if count <= 0 { return nil }
            decoder.append(Array(buffer[..<count]))
        }
    }
}

