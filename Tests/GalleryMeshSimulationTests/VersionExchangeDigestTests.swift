import GalleryModel
@testable import GalleryNode
import Testing
@testable import GalleryMeshSimulation

/// The periodic version exchange by digest (protocol.md, section 5), on two simulated nodes: the
/// only way an op reaches the peer here is the exchange, so a digest that fails to bring on the
/// full exchange leaves the gap open.
@Suite struct VersionExchangeDigestTests {
    /// Two connected nodes (node 0 dials node 1), running for 3 simulated seconds; `digests`
    /// sets each node's `versionDigests`.
    static func pair(digests: (Bool, Bool) = (true, true)) -> MeshSimulation {
        var parameters = MeshParameters()
        parameters.nodes = 2
        let simulation = MeshSimulation(parameters)
        simulation.nodes[0].configure = { $0.versionDigests = digests.0 }
        simulation.nodes[1].configure = { $0.versionDigests = digests.1 }
        for node in simulation.nodes { node.start(network: simulation.network, parameters: parameters) }
        simulation.scheduler.run(until: 3_000_000_000)
        return simulation
    }

    /// Makes an op on `node` that its peers never get by relay: the node takes every peer to hold
    /// it already (wrong knowledge, as after a frame lost inside a node), so it neither pushes nor
    /// announces it. Only the version exchange can find the gap.
    static func makeHiddenOp(on node: SyncNode, gallery: String) throws {
        let next = node.read { $0.version[$0.id] } + 1
        node.loop.sync {
            for id in node.sessions.keys {
                node.sessions[id]?.relay.learned(VersionVector([node.replica.id: next]))
            }
        }
        try node.perform { _ = try $0.createGallery(gallery) }
    }

    @Test func digestMismatchBringsTheFullExchangeThatHealsAGap() throws {
        let simulation = Self.pair()
        let (a, b) = try (#require(simulation.nodes[0].node), #require(simulation.nodes[1].node))
        // Idle and equal: only digests cross, answered by nothing.
        simulation.scheduler.run(until: 25_000_000_000)
        let idle = (a.relayCounts, b.relayCounts)
        #expect(idle.0.digestsSent >= 2 && idle.1.digestsSent >= 2)
        #expect(idle.0.fullExchangesSent == 0 && idle.1.fullExchangesSent == 0)
        #expect(idle.0.digestsDiffered == 0 && idle.1.digestsDiffered == 0)

        try Self.makeHiddenOp(on: a, gallery: "only by anti-entropy")
        simulation.scheduler.run(until: simulation.scheduler.now + 5_000_000_000)
        #expect(b.read { !$0.hasGallery("only by anti-entropy") }, "the op was relayed: the test no longer makes a gap")
        // Within an interval, b's digest differs at a; two confirmations later b sends its vector.
        simulation.scheduler.run(until: simulation.scheduler.now + 15_000_000_000)
        #expect(b.read { $0.hasGallery("only by anti-entropy") }, "the gap was never filled")
        #expect(a.relayCounts.digestsDiffered >= 3)
        #expect(b.relayCounts.fullExchangesSent >= 1)
        #expect(a.read { $0.version } == b.read { $0.version })
    }

    @Test func peerWithoutDigestsGetsTheFullVectorAndIsHealed() throws {
        // Node 1 behaves as a node from before `version_digest`: it neither says it speaks them
        // nor answers them, so node 0 must keep sending it the full `sync_request`.
        let simulation = Self.pair(digests: (true, false))
        let (a, b) = try (#require(simulation.nodes[0].node), #require(simulation.nodes[1].node))
        try Self.makeHiddenOp(on: b, gallery: "from the old node")
        try Self.makeHiddenOp(on: a, gallery: "to the old node")
        simulation.scheduler.run(until: simulation.scheduler.now + 25_000_000_000)
        #expect(a.read { $0.hasGallery("from the old node") })
        #expect(b.read { $0.hasGallery("to the old node") })
        #expect(a.relayCounts.digestsSent == 0 && b.relayCounts.digestsSent == 0)
        #expect(a.relayCounts.fullExchangesSent >= 1 && b.relayCounts.fullExchangesSent >= 1)
    }
}
