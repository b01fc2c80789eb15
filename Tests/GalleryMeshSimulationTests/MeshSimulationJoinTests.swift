import GalleryModel
@testable import GalleryNode
import Testing
@testable import GalleryMeshSimulation

/// A node joining a busy mesh (protocol.md, section 5, "Joining"): caught up by one peer, then it
/// asks the others for what is still missing, once that peer's stream behind its `caught_up` has
/// arrived; asking at once brought each op made meanwhile once per peer.
@Suite struct MeshSimulationJoinTests {
    @Test func joiningNodeGetsTheOpsMadeDuringItsCatchUpOnce() throws {
        var parameters = MeshParameters()
        parameters.nodes = 5
        // Slow links and small catch-up frames: the catch-up takes a while, and its `caught_up`
        // waits behind two frames (about 130 ms), as behind two 1 MiB frames on a fast link.
        parameters.bandwidth = 250_000
        let simulation = MeshSimulation(parameters)
        let scheduler = simulation.scheduler
        // Nodes 0 to 3 in a full mesh; node 4 dials all four.
        for node in simulation.nodes {
            let index = node.index
            node.configure = { configuration in
                configuration.catchUpBatchBytes = 16 << 10
                configuration.peers = (index == 4 ? 0..<4 : 0..<index).map(SimulatedNetwork.endpoint(of:))
            }
        }
        for node in simulation.nodes.prefix(4) { node.start(network: simulation.network, parameters: parameters) }
        scheduler.run(until: 2_000_000_000)
        let holders = try simulation.nodes.prefix(4).map { try #require($0.node) }
        for (index, holder) in holders.enumerated() { try holder.perform { _ = try $0.createGallery("g\(index)") } }
        for round in 0..<3_000 { try holders[0].perform { _ = try $0.insert([.titled("h\(round)")], into: "g0", at: 0) } }
        scheduler.run(until: scheduler.now + 5_000_000_000)
        #expect(holders.allSatisfy { $0.read { $0.opCount } == 3_004 })

        // The others keep editing, 200 ops/s in all, while node 4 joins.
        let lane = scheduler.makeLane()
        let start = scheduler.now
        for tick in 0..<600 {
            let editor = holders[1 + tick % 3], gallery = "g\(1 + tick % 3)"
            scheduler.schedule(at: start + UInt64(tick) * 5_000_000, lane: lane) {
                _ = try? editor.perform { _ = try $0.insert([.titled("e\(tick)")], into: gallery, at: 0) }
            }
        }
        simulation.nodes[4].start(network: simulation.network, parameters: parameters)
        scheduler.run(until: start + 6_000_000_000)
        let newcomer = try #require(simulation.nodes[4].node)
        #expect(newcomer.read { $0.version } == holders[0].read { $0.version })
        #expect(newcomer.read { $0.opCount } == 3_604)
        let counts = newcomer.relayCounts
        print("MeshSimulationJoin: the newcomer received \(counts.opsReceived) ops for 3,604 (\(counts.duplicatesReceived) duplicates)")
        // 172 with the wait, relaying each op as it becomes durable (nothing else in flight at 200
        // ops/s): the new links' trees forming, a few duplicates per origin and link before its
        // `prune`. A 10 ms hold on every relay brought that to 42, at 10 ms per hop for every op,
        // and without the wait each op made in the 130 ms behind `caught_up` also came from every
        // other peer (600 ops, 3 peers).
        #expect(counts.duplicatesReceived <= 200, "\(counts.duplicatesReceived) duplicates")
    }
}
