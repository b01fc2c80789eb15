import Foundation
import GalleryModel
import GalleryNode
import GalleryWire
import Synchronization
import Testing

extension NodeSuites.AdversarialPeerTests {
    @Test("A peer that authenticates but never reads is dropped with slow_peer; A keeps serving B")
    func slowPeerIsDropped() throws {
        let lines = LogLines()
        let log = NodeLog { line in lines.append(line) }
        func configuration(_ name: String, queueLimit: Int) -> NodeConfiguration {
            NodeConfiguration(
                name: name, secret: TestCluster.secret, heartbeatInterval: .milliseconds(100), peerTimeout: .seconds(5),
                reconnect: Backoff(initial: .milliseconds(20), maximum: .milliseconds(200)), outboundQueueLimit: queueLimit, log: log)
        }
        let a = SyncNode(configuration: configuration("alpha", queueLimit: 64 << 10), replica: Replica(id: ReplicaID(deriving: "alpha")))
        let b = SyncNode(configuration: configuration("beta", queueLimit: 64 << 20), replica: Replica(id: ReplicaID(deriving: "beta")))
        let endpoint = try #require(try a.start())
        try b.start()
        defer {
            b.stop()
            a.stop()
        }
        let aID = a.read { $0.id }
        b.keepConnected(to: endpoint)
        let item = try a.perform { replica -> OpID in
            try replica.createGallery("g")
            return try replica.insert([.titled("x")], into: "g", at: 0).id
        }
        #expect(b.wait(timeout: .seconds(10)) { $0.contains(item) })
        try #require(Self.waitUntil(.seconds(10)) { a.peers.contains { $0.name == "beta" && $0.state == .live } })

        // The slow peer: authenticates, asks for everything, sends heartbeats (so it is not dropped
        // for silence), and never reads.
        guard let slow = try AdversaryClient.authenticated(
            to: endpoint, secret: TestCluster.secret, replica: ReplicaID(0x510E), name: "slowpoke", deadline: .seconds(40)) else { return }
        slow.send(.syncRequest(VersionVector()))
        let heartbeats = AdversaryHeartbeats(slow)
        heartbeats.start()
        defer { heartbeats.stop() }
        try #require(Self.waitUntil(.seconds(5)) { a.peers.contains { $0.name == "slowpoke" && $0.state == .syncing } })

        // A pushes 8 KB updates (of a URL: a title is at most 1 KiB); B keeps up (at most 3 ops in
        // flight to it, well under 64 KiB).
        let started = ContinuousClock.now
        let filler = String(repeating: "ops for nobody. ", count: 500)
        var pushed = 0
        var pushedBytes = 0
        var bKeptUp = true
        while ContinuousClock.now - started < .seconds(20) && pushedBytes < 64 << 20 {
            let op = try a.perform { try $0.update(item, .url, to: .text("\(pushed) \(filler)")) }
            pushed += 1
            pushedBytes += filler.utf8.count
            let target = op.id.counter - min(op.id.counter - 1, 3)
            if !b.wait(timeout: .seconds(5), until: { $0.version[aID] >= target }) {
                bKeptUp = false
                break
            }
            if lines.all.contains(where: { $0.contains("slowpoke closed") }) { break }
        }
        let pushTime = ContinuousClock.now - started
        heartbeats.stop()
        #expect(bKeptUp, "B fell behind after \(pushed) ops")
        let closedLine = lines.all.first { $0.contains("slowpoke closed") }
        #expect(closedLine?.contains("slow_peer") == true, "A's log: \(closedLine ?? "no close of slowpoke")")

        // The slow peer drains what is buffered: the connection ends (after `error slow_peer` if A's
        // writer got it out before the socket was shut).
        let drainStart = ContinuousClock.now
        let frames = slow.readToEnd()
        let drainTime = ContinuousClock.now - drainStart
        #expect(slow.end?.isClosedByPeer == true, "slow peer: \(String(describing: slow.end))")
        let allowed: Set<FrameType> = [.noiseHandshake, .identity, .features, .syncRequest, .versionDigest, .tree, .addresses, .ops, .caughtUp,
                                       .heartbeat, .error]
        #expect(frames.allSatisfy { $0.knownType.map(allowed.contains) ?? false })
        let errors = frames.filter { $0.knownType == .error }
        #expect(errors.count <= 1 && errors.allSatisfy { Self.errorCode($0) == .slowPeer }, "\(Self.describe(errors))")

        // A still serves B, which never lost its connection.
        let fromA = try a.perform { try $0.insert([.titled("after slow peer (a)")], into: "g", at: 0) }
        let fromB = try b.perform { try $0.insert([.titled("after slow peer (b)")], into: "g", at: 0) }
        #expect(b.wait(timeout: .seconds(10)) { $0.contains(fromA.id) })
        #expect(a.wait(timeout: .seconds(10)) { $0.contains(fromB.id) })
        #expect(Self.waitUntil(.seconds(5)) { a.peers.map(\.name) == ["beta"] })
        #expect(a.read { $0.version } == b.read { $0.version })
        let goodPeerDrops = lines.all.filter { $0.contains("connection to beta closed") || $0.contains("connection to alpha closed") }
        #expect(goodPeerDrops.isEmpty, "B's connection was dropped: \(goodPeerDrops)")
        print("AdversarialPeer: slow peer dropped after \(pushed) ops (\(pushedBytes >> 10) KiB) pushed in \(pushTime); "
            + "it drained \(slow.bytesRead >> 10) KiB in \(drainTime), error frame received: \(!errors.isEmpty); "
            + "A: \(closedLine ?? "-")")
    }
}
