import Foundation
import GalleryModel
import GallerySimulation
import Synchronization
import Testing

extension NodeSuites {
    /// Replicas converging over real TCP on 127.0.0.1, in one process.
    @Suite("Sync over TCP")
    struct SyncTests {
        @Test("Two replicas converge after concurrent edits")
        func twoReplicas() throws {
            let cluster = try TestCluster(["alice", "bob"])
            defer { cluster.stop() }
            try cluster.nodes[0].perform { replica in
                try replica.createGallery("holiday")
                try replica.insert(["a", "b", "c"].map(ItemDraft.titled), into: "holiday", at: 0)
            }
            try cluster.nodes[1].perform { replica in
                try replica.createGallery("holiday")
                try replica.insert(["x", "y"].map(ItemDraft.titled), into: "holiday", at: 0)
            }
            cluster.nodes[1].keepConnected(to: cluster.nodes[0].endpoint!)
            cluster.expectConvergence()
            #expect(cluster.view(0) == cluster.view(1))
            #expect(cluster.view(0)["holiday"]?.count == 5)
            // Live: an edit after the catch-up reaches the other side.
            let moved = try cluster.nodes[1].perform { replica in
                try replica.move(try replica.item(at: 0, in: "holiday").id, to: "holiday", at: 4)
            }
            cluster.expectConvergence()
            #expect(cluster.nodes[0].read { $0.contains(moved.id) })
            #expect(cluster.view(0) == cluster.view(1))
            let peers = cluster.nodes[1].peers
            #expect(peers.count == 1 && peers.first?.name == "alice" && peers.first?.state == .live)
        }

        @Test("Three replicas in a triangle converge")
        func triangle() throws {
            let cluster = try TestCluster(["a", "b", "c"], peers: [0: [1], 1: [2], 2: [0]])
            defer { cluster.stop() }
            for (index, node) in cluster.nodes.enumerated() {
                try node.perform { replica in
                    try replica.createGallery("g")
                    try replica.insert((0..<20).map { .titled("\(index)-\($0)") }, into: "g", at: 0)
                }
            }
            cluster.expectConvergence()
            #expect(cluster.view(0) == cluster.view(1) && cluster.view(1) == cluster.view(2))
            #expect(cluster.view(0)["g"]?.count == 60)
        }

        @Test("A chain A-B-C converges: B relays between A and C")
        func chain() throws {
            let cluster = try TestCluster(["a", "b", "c"], peers: [0: [1], 2: [1]])
            defer { cluster.stop() }
            cluster.expectConvergence()
            try cluster.nodes[0].perform { try $0.createGallery("g") }
            cluster.expectConvergence()
            try cluster.nodes[0].perform { try $0.insert([.titled("from a")], into: "g", at: 0) }
            try cluster.nodes[2].perform { try $0.insert([.titled("from c")], into: "g", at: 0) }
            cluster.expectConvergence()
            #expect(cluster.view(0) == cluster.view(2))
            #expect(Set(cluster.view(0)["g"]?.map { String($0.split(separator: " ")[1...2].joined(separator: " ")) } ?? [])
                == ["from a", "from c"])
            // A and C never talked to each other directly.
            #expect(cluster.nodes[0].peers.map(\.name) == ["b"])
        }

        @Test("A node with the wrong secret is refused and changes nothing")
        func wrongSecret() throws {
            let cluster = try TestCluster(["alice", "mallory"], secrets: [1: Array("not the secret".utf8)])
            defer { cluster.stop() }
            try cluster.nodes[0].perform { try $0.createGallery("private") }
            try cluster.nodes[1].perform { try $0.createGallery("intruder") }
            cluster.nodes[1].keepConnected(to: cluster.nodes[0].endpoint!)
            let deadline = ContinuousClock.now + .seconds(10)
            while cluster.logged("auth_failed").count < 2 && ContinuousClock.now < deadline {
                _ = cluster.nodes[0].wait(timeout: .milliseconds(50)) { _ in false }
            }
            #expect(cluster.logged("auth_failed").count >= 2)
            #expect(cluster.nodes[0].read { $0.galleries } == ["private"])
            #expect(cluster.nodes[1].read { $0.galleries } == ["intruder"])
            #expect(cluster.nodes[0].peers.allSatisfy { $0.state == .handshaking })
        }

        @Test("A peer disconnected in the middle of a catch-up reconnects; no op lost or applied twice")
        func disconnectMidBatch() throws {
            // Small catch-up frames, so that the catch-up takes many frames.
            let cluster = try TestCluster(["source", "sink"], catchUpBatchBytes: 2_048)
            defer { cluster.stop() }
            let total = try cluster.nodes[0].perform { replica -> Int in
                try replica.createGallery("g")
                for index in 0..<3_000 { try replica.insert([.titled("i\(index)")], into: "g", at: index / 2) }
                return replica.opCount
            }
            let source = cluster.nodes[0].read { $0.id }
            let sink = cluster.nodes[1]
            let applied = Counter()
            sink.observe { ops in
                // Cut the connection once, part way through the catch-up.
                if applied.add(ops.count) >= 500 && applied.cutOnce() {
                    DispatchQueue.global().async { sink.disconnect(source) }
                }
            }
            sink.keepConnected(to: cluster.nodes[0].endpoint!)
            cluster.expectConvergence(timeout: .seconds(30))
            #expect(applied.wasCut)
            // The observer hears of the ops on its own thread, after the replica has them: its
            // count may trail the convergence seen above.
            #expect(applied.reaches(total, within: .seconds(10)), "the observer heard of \(applied.value) of \(total) ops")
            #expect(sink.read { $0.opCount } == total)
            #expect(cluster.view(0) == cluster.view(1))
            #expect(cluster.logged("disconnected by request").count >= 1)
        }

        @Test("Seeded random edits, disconnects and reconnects across three replicas converge", arguments: [11, 12] as [UInt64])
        func randomSchedule(seed: UInt64) throws {
            let cluster = try TestCluster(["r0", "r1", "r2"], peers: [0: [1, 2], 1: [2]])
            defer { cluster.stop() }
            var random = SeededGenerator(seed: seed)
            for node in cluster.nodes { try node.perform { try $0.createGallery("g") } }
            var made = 0
            for _ in 0..<300 {
                let node = cluster.nodes[Int.random(in: 0..<3, using: &random)]
                let roll = Int.random(in: 0..<100, using: &random)
                if roll < 5 {
                    let other = cluster.nodes[Int.random(in: 0..<3, using: &random)].read { $0.id }
                    node.disconnect(other)
                    continue
                }
                try node.perform { replica in
                    let count = try replica.count(in: "g")
                    if count == 0 || roll < 50 {
                        try replica.insert([.titled("s\(seed)-\(made)")], into: "g", at: Int.random(in: 0...count, using: &random))
                    } else if roll < 75 {
                        let item = try replica.item(at: Int.random(in: 0..<count, using: &random), in: "g")
                        try replica.move(item.id, to: "g", at: Int.random(in: 0..<count, using: &random))
                    } else if roll < 90 {
                        try replica.delete(try replica.item(at: Int.random(in: 0..<count, using: &random), in: "g").id)
                    } else {
                        let item = try replica.item(at: Int.random(in: 0..<count, using: &random), in: "g")
                        try replica.update(item.id, .title, to: .text("u\(made)"))
                    }
                }
                made += 1
            }
            cluster.expectConvergence(timeout: .seconds(30), "seed \(seed)")
            #expect(cluster.view(0) == cluster.view(1) && cluster.view(1) == cluster.view(2), "seed \(seed)")
            let counts = cluster.nodes.map { node in node.read { $0.opCount } }
            #expect(Set(counts).count == 1, "seed \(seed): op counts \(counts)")
        }
    }
}

/// A thread-safe counter for observers.
final class Counter: Sendable {
    private let state = Mutex<(value: Int, cut: Bool)>((0, false))

    func add(_ amount: Int) -> Int {
        state.withLock { $0.value += amount; return $0.value }
    }

    /// True the first time only.
    func cutOnce() -> Bool {
        state.withLock { state in
            defer { state.cut = true }
            return !state.cut
        }
    }

    var value: Int { state.withLock { $0.value } }
    var wasCut: Bool { state.withLock { $0.cut } }

    /// Whether the count is exactly `target` by `timeout` (checked each millisecond).
    func reaches(_ target: Int, within timeout: Duration) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while value < target && ContinuousClock.now < deadline { usleep(1_000) }
        return value == target
    }
}
