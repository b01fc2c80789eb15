import Foundation
import GalleryModel
import GalleryNode
import Synchronization
import Testing

extension NodeSuites {
    /// Review findings: each test fails against the current implementation.
    @Suite("ReviewFindings (node)")
    struct ReviewFindingsNodeTests {
        static let secret = Array("review secret".utf8)

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

        /// protocol.md section 3: "A sender never sends a larger frame than its peer declared."
        /// `SyncNode.broadcast` sends the ops of one command (or one received frame plus the ops it
        /// released) as a single `ops` frame, never split to the peer's `max_frame`: a peer that
        /// declared 65,536 drops the connection with `frame_too_large`.
        @Test("ReviewFindings: live ops frames respect the peer's declared max_frame")
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
        /// `persist` throws, `SyncNode.broadcast` only logs and sends the op anyway (and `perform`
        /// returns normally): after a restart the node's log lacks an op its peers hold, and the
        /// node reuses that op ID for a different op, which peers drop as a duplicate.
        @Test("ReviewFindings: an op that could not be made durable is not sent to peers")
        func undurableOpIsNotSent() throws {
            let lines = LogLines()
            let failNext = Atomic<Bool>(false)
            let writer = try Self.makeNode("writer", lines: lines, persist: { _, local in
                if local && failNext.exchange(false, ordering: .sequentiallyConsistent) {
                    throw CocoaError(.fileWriteOutOfSpace)
                }
            })
            let reader = try Self.makeNode("reader", lines: lines)
            defer { writer.stop(); reader.stop() }
            try reader.connect(to: writer.endpoint!)
            #expect(reader.waitForPeers(timeout: .seconds(5)) { $0.first?.state == .live })
            #expect(writer.waitForPeers(timeout: .seconds(5)) { $0.first?.state == .live })

            failNext.store(true, ordering: .sequentiallyConsistent)
            let notDurable = try? writer.perform { try $0.createGallery("lost") }
            // A second op, durable, on the same connection: once it has arrived, anything sent
            // before it has arrived too.
            let durable = try writer.perform { try $0.createGallery("kept") }
            #expect(reader.wait(timeout: .seconds(5)) { $0.contains(durable.id) })
            if let notDurable {
                #expect(!reader.read { $0.contains(notDurable.id) },
                        "an op whose persist failed reached a peer, and perform reported success")
            }
        }
    }
}
