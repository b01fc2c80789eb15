import Foundation
import GalleryModel
import GalleryNode
import Testing

extension NodeSuites {
    /// Relay without floods on real nodes over loopback (protocol.md, "Relay"): each op reaches
    /// each node about once, a tree that loses a link heals, and all converge.
    @Suite("Relay mesh")
    struct RelayMeshTests {
        /// Every node dials every node before it: a full mesh of `count`.
        static func fullMesh(_ count: Int) -> [Int: [Int]] {
            Dictionary(uniqueKeysWithValues: (1..<count).map { ($0, Array(0..<$0)) })
        }

        /// Waits until every node has `count - 1` live peers.
        static func waitMeshed(_ cluster: TestCluster, peers: Int) -> Bool {
            cluster.nodes.allSatisfy { node in
                node.waitForPeers(timeout: .seconds(10)) { $0.filter { $0.state == .live }.count >= peers }
            }
        }

        @Test("In a 5-node full mesh each node receives each op about once, and all converge")
        func fullMeshReceivesEachOpAboutOnce() throws {
            let count = 5
            let cluster = try TestCluster((0..<count).map { "relay\($0)" }, peers: Self.fullMesh(count))
            defer { cluster.stop() }
            #expect(Self.waitMeshed(cluster, peers: count - 1))
            // Every node edits its own gallery, all at once: a warm-up while the trees form, then
            // the measured phase.
            func edit(rounds: Range<Int>) {
                DispatchQueue.concurrentPerform(iterations: count) { index in
                    let node = cluster.nodes[index]
                    if rounds.lowerBound == 0 { _ = try? node.perform { try $0.createGallery("g\(index)") } }
                    for round in rounds {
                        _ = try? node.perform { try $0.insert([.titled("\(index)-\(round)")], into: "g\(index)", at: 0) }
                    }
                }
            }
            // Two warm-up rounds: converged means every node holds every op, not that the copies
            // relayed over the other links (sent up to `relayHold` later) have arrived, or that the
            // `prune`s they bring have: those of the first round arrive during the second.
            edit(rounds: 0..<20)
            #expect(cluster.expectConvergence(timeout: .seconds(20)))
            edit(rounds: 20..<40)
            #expect(cluster.expectConvergence(timeout: .seconds(20)))
            let warm = cluster.nodes.map(\.relayCounts)
            let warmTotal = cluster.nodes[0].read { $0.opCount }
            edit(rounds: 40..<140)
            #expect(cluster.expectConvergence(timeout: .seconds(20)))
            let total = cluster.nodes[0].read { $0.opCount }
            // Each node made 100 of the new ops and must receive the others' once.
            let unique = (total - warmTotal) * (count - 1) / count
            var lines: [String] = []
            var received = 0
            for (index, node) in cluster.nodes.enumerated() {
                let counts = node.relayCounts
                let ops = counts.opsReceived - warm[index].opsReceived
                let duplicates = counts.duplicatesReceived - warm[index].duplicatesReceived
                received += ops
                lines.append("relay\(index): \(ops) ops received for \(unique) new (\(duplicates) duplicates; warm-up "
                    + "\(warm[index].duplicatesReceived)), \(counts.prunesSent) prunes, \(counts.announcementsSent) ihave, "
                    + "\(counts.graftsSent) grafts")
                #expect(ops - duplicates == unique)
                // A flood would bring each op count - 1 times; once the trees have formed, once. A
                // link may still relay one or two flushes (about 20 ops each here) before the
                // `prune` of a late warm-up duplicate reaches it.
                #expect(duplicates <= unique / 8, "relay\(index) received \(duplicates) duplicates of \(unique) ops")
            }
            print("RelayMesh: \(total) ops; " + lines.joined(separator: "; "))
            #expect(received * 10 <= unique * count * 11, "\(received) ops received across the mesh; once each is \(unique * count)")
        }

        @Test("A link killed mid-stream: the tree heals through announcements and graft, all converge")
        func killedLinkHeals() throws {
            let count = 4
            // A killed link stays dead (the two ends forget each other), so only the relay can heal.
            let cluster = try TestCluster((0..<count).map { "heal\($0)" })
            defer { cluster.stop() }
            for index in 1..<count {
                for target in 0..<index { try cluster.nodes[index].connect(to: cluster.nodes[target].endpoint!) }
            }
            #expect(Self.waitMeshed(cluster, peers: count - 1))
            let origin = cluster.nodes[0]
            let cut = cluster.nodes[1]
            try origin.perform { try $0.createGallery("stream") }
            // Warm up: the trees form (origin's links eager, the others pruned for its ops).
            for round in 0..<30 { try origin.perform { try $0.insert([.titled("warm \(round)")], into: "stream", at: 0) } }
            #expect(cluster.expectConvergence(timeout: .seconds(10)))
            // Mid-stream: the origin keeps making ops on another thread while its link to `cut` dies.
            let streaming = DispatchGroup()
            streaming.enter()
            Thread.detachNewThread {
                for round in 0..<200 {
                    _ = try? origin.perform { try $0.insert([.titled("live \(round)")], into: "stream", at: 0) }
                    usleep(1_000)
                }
                streaming.leave()
            }
            usleep(50_000)
            // Each forgets the other first, so neither redials (the address book would).
            #expect(origin.forget("heal1") && cut.forget("heal0"))
            origin.disconnect(cut.read { $0.id })
            streaming.wait()
            #expect(cut.waitForPeers(timeout: .seconds(5)) { $0.filter { $0.state == .live }.count == count - 2 })
            // Well within the 10 s version exchange: the relay heals it.
            let started = ContinuousClock.now
            #expect(cluster.expectConvergence(timeout: .seconds(5), "after the link was killed"))
            let counts = cut.relayCounts
            print("RelayMesh heal: converged \(ContinuousClock.now - started) after the stream; cut node: "
                + "\(counts.graftsSent) grafts, \(counts.opsReceived) ops received, \(counts.duplicatesReceived) duplicates")
            // Its other links were lazy for the origin's ops (pruned during the warm-up): the
            // announcements on them led to a graft.
            #expect(counts.graftsSent >= 1)
            #expect(cluster.view(0) == cluster.view(1))
        }
    }
}
