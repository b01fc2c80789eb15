@testable import GalleryNode
import Testing
@testable import GalleryMeshSimulation

/// Relaying under load, batched (`SyncNode+RelayHold`, protocol.md, "Relay"): a stream of ops
/// crosses a link a few per frame and per record; an op after a quiet spell is not held.
@Suite struct RelayHoldTests {
    /// Two simulated nodes, node 1 dialing node 0, with `hold` as their `relayHold`; runs until
    /// they are connected.
    static func pair(hold: Duration) throws -> (MeshSimulation, SyncNode, SyncNode) {
        var parameters = MeshParameters()
        parameters.nodes = 2
        let simulation = MeshSimulation(parameters)
        for node in simulation.nodes {
            let index = node.index
            node.configure = { configuration in
                configuration.relayHold = hold
                configuration.peers = index == 1 ? [SimulatedNetwork.endpoint(of: 0)] : []
            }
            node.start(network: simulation.network, parameters: parameters)
        }
        simulation.scheduler.run(until: 2_000_000_000)
        let nodes = try simulation.nodes.map { try #require($0.node) }
        try nodes[0].perform { _ = try $0.createGallery("g") }
        simulation.scheduler.run(until: simulation.scheduler.now + 1_000_000_000)
        return (simulation, nodes[0], nodes[1])
    }

    /// Makes `count` ops on `node`, one per millisecond, and runs until a second after the last.
    static func stream(_ count: Int, on node: SyncNode, in simulation: MeshSimulation) {
        let scheduler = simulation.scheduler
        let lane = scheduler.makeLane()
        let start = scheduler.now
        for index in 0..<count {
            scheduler.schedule(at: start + UInt64(index) * 1_000_000, lane: lane) {
                _ = try? node.perform { _ = try $0.insert([.titled("s\(index)")], into: "g", at: 0) }
            }
        }
        scheduler.run(until: start + UInt64(count) * 1_000_000 + 1_000_000_000)
    }

    @Test func aStreamCrossesAFewOpsPerFrame() throws {
        let (held, source, sink) = try Self.pair(hold: .milliseconds(10))
        let before = sink.relayCounts.opsFramesReceived
        Self.stream(200, on: source, in: held)
        #expect(sink.read { $0.opCount } == source.read { $0.opCount })
        let heldFrames = sink.relayCounts.opsFramesReceived - before

        let (unheld, source2, sink2) = try Self.pair(hold: .zero)
        let before2 = sink2.relayCounts.opsFramesReceived
        Self.stream(200, on: source2, in: unheld)
        #expect(sink2.read { $0.opCount } == source2.read { $0.opCount })
        let unheldFrames = sink2.relayCounts.opsFramesReceived - before2
        print("RelayHold: 200 ops in \(heldFrames) frames held 10 ms, \(unheldFrames) not held")
        // One flush per 10 ms: about 20 frames, against one per group commit (2 ms) without.
        #expect(heldFrames <= 25)
        #expect(unheldFrames >= 80)
    }

    @Test func anOpAfterAQuietSpellIsNotHeld() throws {
        let (simulation, source, sink) = try Self.pair(hold: .milliseconds(50))
        let scheduler = simulation.scheduler
        try source.perform { _ = try $0.insert([.titled("alone")], into: "g", at: 0) }
        let made = source.read { $0.version }
        // Group commit (2 ms), one link crossing (10 ms plus up to 2 of jitter): well before 50 ms.
        scheduler.run(until: scheduler.now + 15_000_000)
        #expect(sink.read { $0.version.includes(made) })
        // A second op right behind it waits for the flush, 50 ms after the first went out.
        try source.perform { _ = try $0.insert([.titled("behind")], into: "g", at: 0) }
        let second = source.read { $0.version }
        scheduler.run(until: scheduler.now + 30_000_000)
        #expect(!sink.read { $0.version.includes(second) })
        scheduler.run(until: scheduler.now + 40_000_000)
        #expect(sink.read { $0.version.includes(second) })
    }
}
