import Foundation
import GalleryModel
import GalleryNode
import Synchronization
import Testing

extension NodeSuites {
    /// What a node sends live: frames within each peer's limit, and only ops it could store.
    @Suite("Broadcast")
    struct BroadcastTests {
        static let secret = Array("broadcast secret".utf8)

        static func makeNode(_ name: String, lines: LogLines, maximumFrameSize: UInt32 = 4 << 20,
                             persist: (@Sendable ([Op], Bool) throws -> Void)? = nil) throws -> SyncNode {
            let configuration = NodeConfiguration(
                name: name, secret: secret, heartbeatInterval: .milliseconds(100), peerTimeout: .seconds(3),
                reconnect: Backoff(initial: .milliseconds(20), maximum: .milliseconds(200)),
                maximumFrameSize: maximumFrameSize, log: NodeLog { lines.append("\(name): \($0)") },
                persist: persist)
            let node = SyncNode(configuration: configuration, replica: Replica(id: ReplicaID(deriving: name)))
            try node.start()
            return node
        }

        /// protocol.md section 3: "A sender never sends a larger frame than its peer declared." The
        /// ops of one command (200 KB here) reach a peer that declared 65,536 in several frames,
        /// without `frame_too_large`.
        @Test("Live ops frames respect the peer's declared max_frame")
        func liveFrameRespectsPeerMaximum() throws {
            let lines = LogLines()
            let small = try Self.makeNode("small", lines: lines, maximumFrameSize: 65_536)
            let big = try Self.makeNode("big", lines: lines)
            defer { small.stop(); big.stop() }
            try big.perform { try $0.createGallery("g") }
            // One attempt, no reconnection: the live session must carry the ops.
            try small.connect(to: big.endpoint!)
            #expect(small.waitForPeers(timeout: .seconds(5)) { $0.first?.state == .live })
            #expect(big.waitForPeers(timeout: .seconds(5)) { $0.first?.state == .live })
            let title = String(repeating: "x", count: 1_000)
            try big.perform { replica in
                for index in 0..<200 { try replica.insert([.titled("\(index) \(title)")], into: "g", at: 0) }
            }
            let target = big.read { $0.version }
            let received = small.wait(timeout: .seconds(5)) { $0.version.includes(target) }
            #expect(received, "log: \(lines.all.filter { $0.contains("closed") })")
            #expect(lines.all.filter { $0.contains("frameTooLarge") || $0.contains("frame_too_large") }.isEmpty,
                    "\(lines.all.filter { $0.contains("closed") })")
        }

        /// README: the op log is "written and synced before an op is sent to any peer". When
        /// storing fails, the op must not reach any peer (after a restart the node would reuse its
        /// ID) while it is not durable, `perform` must fail with the reason and further commands be
        /// refused; the node keeps its peers and reads, retries, and sends the op once it is stored.
        @Test("An op that could not be made durable is not sent until storing works again; commands are refused meanwhile")
        func undurableOpIsNotSent() throws {
            let lines = LogLines()
            let failing = Atomic<Bool>(false)
            let attempts = Atomic<Int>(0)
            let writer = try Self.makeNode("writer", lines: lines, persist: { _, _ in
                if failing.load(ordering: .sequentiallyConsistent) {
                    attempts.add(1, ordering: .sequentiallyConsistent)
                    throw CocoaError(.fileWriteOutOfSpace)
                }
            })
            let reader = try Self.makeNode("reader", lines: lines)
            defer { writer.stop(); reader.stop() }
            try reader.connect(to: writer.endpoint!)
            #expect(reader.waitForPeers(timeout: .seconds(5)) { $0.first?.state == .live })
            #expect(writer.waitForPeers(timeout: .seconds(5)) { $0.first?.state == .live })
            let durable = try writer.perform { try $0.createGallery("kept") }
            #expect(reader.wait(timeout: .seconds(5)) { $0.contains(durable.id) })

            failing.store(true, ordering: .sequentiallyConsistent)
            #expect(throws: SyncNodeError.self) { try writer.perform { try $0.createGallery("pending") } }
            #expect(throws: SyncNodeError.self) { try writer.perform { try $0.createGallery("refused") } }
            #expect(writer.health.storage != nil && writer.health.unstoredOps == 1)
            // Retried and still failing: the op is not sent, the peer stays connected.
            let deadline = Date().addingTimeInterval(10)
            while attempts.load(ordering: .sequentiallyConsistent) < 3 && Date() < deadline { usleep(10_000) }
            #expect(attempts.load(ordering: .sequentiallyConsistent) >= 3)
            #expect(!reader.read { $0.hasGallery("pending") })
            #expect(writer.peers.first?.state == .live)
            #expect(writer.read { $0.hasGallery("pending") && !$0.hasGallery("refused") })

            failing.store(false, ordering: .sequentiallyConsistent)
            #expect(reader.wait(timeout: .seconds(5)) { $0.hasGallery("pending") })
            #expect(writer.health.isClean)
            let after = try writer.perform { try $0.createGallery("after") }
            #expect(reader.wait(timeout: .seconds(5)) { $0.contains(after.id) })
            #expect(!lines.all.filter { $0.contains("storing works again") }.isEmpty)
        }
    }
}
