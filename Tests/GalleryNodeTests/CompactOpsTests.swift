import Foundation
import GalleryModel
import GalleryNode
import GalleryTestSupport
import GalleryWire
import Synchronization
import Testing

extension NodeSuites {
    /// `ops_compact` between real nodes over loopback (protocol.md, section 7.2): nodes that both
    /// accept it converge on fewer bytes, in live relay and in catch-up; a node that has it off,
    /// or a peer that never sends `features`, gets `ops` and converges all the same.
    @Suite("Compact ops")
    struct CompactOpsTests {
        /// Bytes a node received from all its peers so far.
        static func received(_ node: SyncNode) -> Int {
            node.peers.map(\.bytesReceived).reduce(0, +)
        }

        /// Three editors and a watcher around a hub; the editors make `rounds` ops each in their
        /// own galleries and a shared one. Then a late node joins the hub and is caught up. Returns
        /// the bytes the watcher received while the ops were made, and the late node's.
        static func run(compact: Bool, rounds: Int = 150) throws -> (live: Int, catchUp: Int, ops: Int) {
            let names = ["editor0", "editor1", "editor2", "hub", "watcher", "late"]
            let cluster = try TestCluster(Array(names.prefix(5)), peers: [0: [3], 1: [3], 2: [3], 4: [3]]) { _, configuration in
                configuration.compactOps = compact
            }
            defer { cluster.stop() }
            #expect(cluster.nodes[3].waitForPeers(timeout: .seconds(10)) { $0.filter { $0.state == .live }.count == 4 })
            try cluster.nodes[0].perform { try $0.createGallery("shared") }
            for index in 0..<3 {
                for gallery in 0..<2 { try cluster.nodes[index].perform { try $0.createGallery("editor \(index) gallery \(gallery)") } }
            }
            #expect(cluster.expectConvergence())
            let before = received(cluster.nodes[4])
            let failures = Atomic(0)
            DispatchQueue.concurrentPerform(iterations: 3) { index in
                let node = cluster.nodes[index]
                for round in 0..<rounds {
                    let gallery = round % 3 == 0 ? "shared" : "editor \(index) gallery \(round % 2)"
                    do {
                        try node.perform { replica in
                            let count = try replica.items(in: gallery).count
                            return try replica.insert([.titled("\(index)-\(round)")], into: gallery, at: count / 2)
                        }
                    } catch {
                        failures.add(1, ordering: .relaxed)
                    }
                }
            }
            #expect(failures.load(ordering: .relaxed) == 0)
            #expect(cluster.expectConvergence(timeout: .seconds(30)))
            let live = received(cluster.nodes[4]) - before
            let ops = cluster.nodes[4].read { $0.opCount }
            #expect(ops > 3 * rounds)

            // A node that joins late is caught up by the hub alone.
            let late = try TestCluster([names[5]]) { _, configuration in configuration.compactOps = compact }
            defer { late.stop() }
            late.nodes[0].keepConnected(to: cluster.nodes[3].endpoint!)
            #expect(late.nodes[0].wait(timeout: .seconds(20)) { $0.opCount >= ops })
            #expect(late.nodes[0].read { $0.version } == cluster.nodes[4].read { $0.version })
            #expect(cluster.view(4) == TestCluster.views(late.nodes[0]))
            return (live, received(late.nodes[0]), ops)
        }

        @Test("Nodes that accept ops_compact converge over ops of several replicas and galleries, on fewer bytes")
        func compactOpsSaveBytes() throws {
            let compact = try Self.run(compact: true)
            let plain = try Self.run(compact: false)
            print("CompactOps: \(compact.ops) ops; the watcher received \(compact.live) bytes (plain ops: \(plain.live)), "
                + "the late node \(compact.catchUp) (plain ops: \(plain.catchUp))")
            // A small insert is about 30 bytes in `ops`, about 20 in `ops_compact`; frame and record
            // headers, heartbeats and the handshake come on top of both.
            #expect(compact.live * 10 < plain.live * 9, "live: \(compact.live) bytes compact, \(plain.live) plain")
            #expect(compact.catchUp * 10 < plain.catchUp * 8, "catch-up: \(compact.catchUp) bytes compact, \(plain.catchUp) plain")
        }

        @Test("A node with compact ops syncs both ways with a node that has them off")
        func mixedNodesConverge() throws {
            let cluster = try TestCluster(["compact", "plain"], peers: [1: [0]]) { index, configuration in
                configuration.compactOps = index == 0
            }
            defer { cluster.stop() }
            for (index, node) in cluster.nodes.enumerated() {
                try node.perform { try $0.createGallery("g\(index)") }
            }
            #expect(cluster.expectConvergence())
            let failures = Atomic(0)
            DispatchQueue.concurrentPerform(iterations: 2) { index in
                for round in 0..<100 {
                    do {
                        try cluster.nodes[index].perform { try $0.insert([.titled("\(index)-\(round)")], into: "g\(round % 2)", at: 0) }
                    } catch {
                        failures.add(1, ordering: .relaxed)
                    }
                }
            }
            #expect(failures.load(ordering: .relaxed) == 0)
            #expect(cluster.expectConvergence())
            #expect(cluster.view(0) == cluster.view(1))
            #expect(cluster.nodes[0].read { $0.opCount } == 202)
        }

        /// The ops of the `ops` (or, with `compact`, `ops_compact`) messages, in order.
        static func ops(in messages: [Message], compact: Bool = false) -> [Op] {
            var ops: [Op] = []
            for message in messages {
                switch message {
                case .ops(let some) where !compact: ops += some
                case .opsCompact(let some) where compact: ops += some
                default: break
                }
            }
            return ops
        }

        /// Reads messages until `done` says so or the stream ends; nil at the end of the stream.
        static func read(_ peer: inout RawPeer, until done: (Message) -> Bool) throws -> [Message]? {
            var messages: [Message] = []
            while let message = try peer.receiveOrEnd() {
                messages.append(message)
                if done(message) { return messages }
            }
            return nil
        }

        @Test("A peer that sends no features gets ops frames only; one that accepts ops_compact gets them")
        func peersWithoutFeaturesGetOps() throws {
            let cluster = try TestCluster(["node"])
            defer { cluster.stop() }
            let node = cluster.nodes[0]
            try node.perform { try $0.createGallery("g") }
            for round in 0..<20 { try node.perform { try $0.insert([.titled("\(round)")], into: "g", at: 0) } }
            let ops = node.read { $0.ops }

            // The independent client's way: no `features`; the node's `features` is skipped.
            var plain = try RawPeer(connectingTo: node.endpoint!, secret: TestCluster.secret)
            plain.send(.syncRequest(VersionVector()))
            let caughtUp = try #require(try Self.read(&plain) { if case .caughtUp = $0 { true } else { false } })
            #expect(caughtUp.contains(.features(.compactOps)), "\(caughtUp.map(\.type))")
            #expect(!caughtUp.contains { $0.type == .opsCompact })
            #expect(Self.ops(in: caughtUp) == ops)
            let next = try node.perform { try $0.insert([.titled("live")], into: "g", at: 0) }
            let live = try #require(try Self.read(&plain) { if case .ops(let ops) = $0 { ops.contains { $0.id == next.id } } else { false } })
            #expect(!live.contains { $0.type == .opsCompact })

            // A peer that accepts them: the catch-up comes in `ops_compact` (one frame here, the
            // first of the direction, so empty tables read it).
            var compact = try RawPeer(connectingTo: node.endpoint!, secret: TestCluster.secret)
            compact.send(.features(.compactOps))
            compact.send(.syncRequest(VersionVector()))
            let answer = try #require(try Self.read(&compact) { if case .caughtUp = $0 { true } else { false } })
            #expect(!answer.contains { $0.type == .ops })
            #expect(Self.ops(in: answer, compact: true) == node.read { $0.ops })
        }
    }
}
