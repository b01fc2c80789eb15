import Foundation
@testable import GalleryNode
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
            // The tree as `peers` and `status` show it: one root, whose four peers are its children
            // (each heard it first, one link away); every other node has it as parent, the others lazy.
            let roles = cluster.nodes.map { $0.peers.compactMap(\.relay).sorted() }
            print("RelayMesh roles: \(roles)")
            #expect(roles.filter { $0 == Array(repeating: "child", count: count - 1) }.count == 1, "\(roles)")
            #expect(roles.filter { $0 == ["lazy", "lazy", "lazy", "parent"] }.count == count - 1, "\(roles)")
            #expect(cluster.nodes.compactMap(\.relayPlace).map(\.hops).sorted() == [0, 1, 1, 1, 1])
            #expect(received * 10 <= unique * count * 11, "\(received) ops received across the mesh; once each is \(unique * count)")
        }

        @Test("A link of the tree killed mid-stream: the node cut off (no other parent: its other neighbour is below it) is healed by the relay, all converge")
        func killedLinkHeals() throws {
            let count = 4
            // A ring: 0-1, 1-2, 2-3, 3-0. A killed link stays dead (the two ends forget each
            // other), so only the relay can heal.
            let cluster = try TestCluster((0..<count).map { "heal\($0)" }, peers: [1: [0], 2: [1], 3: [2, 0]])
            defer { cluster.stop() }
            #expect(Self.waitMeshed(cluster, peers: 2))
            // The tree: the root's two neighbours hang from it, the fourth node from one of them.
            let trees = cluster.nodes.map { node in node.loop.sync { node.relayTree } }
            let root = try #require(cluster.nodes.firstIndex { node in node.read { $0.id } == trees[0].root })
            #expect(trees.allSatisfy { $0.root == trees[0].root })
            let cutIndex = (root + 1) % count
            let origin = cluster.nodes[root], cut = cluster.nodes[cutIndex]
            try origin.perform { try $0.createGallery("stream") }
            for round in 0..<30 { try origin.perform { try $0.insert([.titled("warm \(round)")], into: "stream", at: 0) } }
            #expect(cluster.expectConvergence(timeout: .seconds(10)))
            // Mid-stream: the root keeps making ops on another thread while its link to `cut` dies.
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
            #expect(origin.forget("heal\(cutIndex)") && cut.forget("heal\(root)"))
            origin.disconnect(cut.read { $0.id })
            streaming.wait()
            #expect(cut.waitForPeers(timeout: .seconds(5)) { $0.filter { $0.state == .live }.count == 1 })
            // Well within the 10 s version exchange and the next round of beacons: the relay heals it.
            let started = ContinuousClock.now
            #expect(cluster.expectConvergence(timeout: .seconds(5), "after the link was killed"))
            let grafts = cluster.nodes.map(\.relayCounts.graftsSent).reduce(0, +)
            print("RelayMesh heal: converged \(ContinuousClock.now - started) after the stream; \(grafts) grafts in the mesh")
            #expect(cluster.view(root) == cluster.view(cutIndex))
        }
    }
}
