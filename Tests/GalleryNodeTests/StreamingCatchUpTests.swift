import Foundation
import GalleryModel
import GalleryNode
import Synchronization
import Testing

extension NodeSuites {
    /// Streaming catch-up (protocol.md, section 5): a large log goes to a new peer in bounded
    /// chunks while the node keeps serving others, and a cut catch-up resumes without resending.
    @Suite("Streaming catch-up")
    struct StreamingCatchUpTests {
        static let secret = Array("streaming catch-up secret".utf8)

        static func makeNode(_ name: String, lines: LogLines, batchBytes: Int = 8 << 10) throws -> SyncNode {
            let configuration = NodeConfiguration(
                name: name, secret: secret, heartbeatInterval: .milliseconds(100), peerTimeout: .seconds(5),
                reconnect: Backoff(initial: .milliseconds(20), maximum: .milliseconds(200)),
                catchUpBatchBytes: batchBytes, log: NodeLog { lines.append("\(name): \($0)") })
            let node = SyncNode(configuration: configuration, replica: Replica(id: ReplicaID(deriving: name)))
            try node.start()
            return node
        }

        /// A node holding `count` ops of about 1 KB each in one gallery: more than the loopback
        /// socket buffers hold once `count` passes a few thousand.
        static func history(_ node: SyncNode, count: Int) throws {
            let title = String(repeating: "t", count: 1_000)
            try node.perform { replica in
                try replica.createGallery("history")
                for index in 0..<(count - 1) { try replica.insert([.titled("\(index) \(title)")], into: "history", at: index) }
            }
        }

        @Test("A large catch-up is paced by the peer's reading: bounded chunks, and the loop keeps serving a live peer and commands")
        func largeCatchUpIsChunkedAndTheLoopKeepsServing() throws {
            let lines = LogLines()
            let source = try Self.makeNode("source", lines: lines)
            let live = try Self.makeNode("live", lines: lines)
            defer { live.stop(); source.stop() }
            // About 20 MB of history: several times what the loopback socket buffers hold.
            let count = 20_000
            try Self.history(source, count: count)
            try live.connect(to: source.endpoint!)
            #expect(live.wait(timeout: .seconds(30)) { $0.opCount == count })
            let framesBefore = source.relayCounts.catchUpFramesSent

            // A newcomer that asks for everything and then reads nothing: its catch-up stays open.
            guard let stalled = try AdversaryClient.authenticated(
                to: source.endpoint!, secret: Self.secret, replica: ReplicaID(0x57A1), name: "stalled", deadline: .seconds(30)) else { return }
            stalled.send(.syncRequest(VersionVector()))
            let heartbeats = AdversaryHeartbeats(stalled)
            heartbeats.start()
            defer { heartbeats.stop() }
            #expect(NodeSuites.AdversarialPeerTests.waitUntil(.seconds(5)) {
                source.peers.contains { $0.name == "stalled" && $0.state == .syncing }
            })

            // Meanwhile: commands on the source are answered promptly and reach the live peer.
            var worst: Duration = .zero
            for index in 0..<50 {
                let started = ContinuousClock.now
                let op = try source.perform { try $0.createGallery("live \(index)") }
                #expect(live.wait(timeout: .seconds(5)) { $0.contains(op.id) })
                worst = max(worst, ContinuousClock.now - started)
            }
            let frames = source.relayCounts.catchUpFramesSent - framesBefore
            let needed = source.read { $0.encodedLogSize } / (8 << 10)
            print("StreamingCatchUp: a stalled newcomer's catch-up of \(count) ops (about \(needed) frames of 8 KiB) "
                + "has had \(frames) frames queued; 50 commands meanwhile, worst command-to-live-peer \(worst)")
            #expect(source.peers.contains { $0.name == "stalled" && $0.state == .syncing }, "the catch-up is still open")
            #expect(frames < needed / 2, "\(frames) of \(needed) frames queued for a peer that reads nothing")
            #expect(worst < .milliseconds(500))
        }

        @Test("A catch-up cut by a disconnect resumes where it stopped, without resending what the peer has")
        func interruptedCatchUpResumes() throws {
            let lines = LogLines()
            let source = try Self.makeNode("source", lines: lines)
            let newcomer = try Self.makeNode("newcomer", lines: lines)
            defer { newcomer.stop(); source.stop() }
            let count = 10_000
            try Self.history(source, count: count)
            // Cut from the newcomer's side once it holds a quarter: what its socket holds is lost.
            let sourceID = source.read { $0.id }
            let cut = Atomic<Bool>(false)
            newcomer.observe { [weak newcomer] _ in
                guard let newcomer, !cut.load(ordering: .relaxed), newcomer.read({ $0.opCount }) >= count / 4 else { return }
                cut.store(true, ordering: .relaxed)
                newcomer.disconnect(sourceID)
            }
            try newcomer.connect(to: source.endpoint!)
            #expect(newcomer.wait(timeout: .seconds(30)) { _ in cut.load(ordering: .relaxed) })
            #expect(newcomer.waitForPeers(timeout: .seconds(5)) { $0.isEmpty })
            let atCut = newcomer.read { $0.opCount }
            let receivedAtCut = newcomer.relayCounts.opsReceived
            #expect(atCut < count, "the catch-up ended before the cut")

            try newcomer.connect(to: source.endpoint!)
            #expect(newcomer.wait(timeout: .seconds(30)) { $0.opCount == count })
            let counts = newcomer.relayCounts
            print("StreamingCatchUp resume: cut at \(atCut) of \(count) ops; \(counts.opsReceived - receivedAtCut) received after, "
                + "\(counts.duplicatesReceived) duplicates in all")
            #expect(counts.opsReceived - receivedAtCut == count - atCut, "the second catch-up resent ops the peer had")
            #expect(counts.duplicatesReceived == 0)
        }

        @Test("A new node joining three peers is caught up by one of them: the log crosses once, not three times")
        func newNodeIsCaughtUpOnce() throws {
            let lines = LogLines()
            let holders = try (0..<3).map { try Self.makeNode("holder\($0)", lines: lines) }
            let newcomer = try Self.makeNode("newcomer", lines: lines)
            defer {
                newcomer.stop()
                for holder in holders { holder.stop() }
            }
            let count = 3_000
            try Self.history(holders[0], count: count)
            for holder in holders.dropFirst() {
                try holder.connect(to: holders[0].endpoint!)
                #expect(holder.wait(timeout: .seconds(30)) { $0.opCount == count })
            }
            for holder in holders { try newcomer.connect(to: holder.endpoint!) }
            #expect(newcomer.wait(timeout: .seconds(30)) { $0.opCount == count })
            #expect(newcomer.waitForPeers(timeout: .seconds(10)) { $0.count == 3 && $0.allSatisfy { $0.state == .live } })
            let counts = newcomer.relayCounts
            print("StreamingCatchUp join: \(count) ops held by 3 peers; the newcomer received \(counts.opsReceived) "
                + "(\(counts.duplicatesReceived) duplicates)")
            #expect(counts.opsReceived <= count + count / 10, "the log crossed \(Double(counts.opsReceived) / Double(count)) times")
        }
    }
}
