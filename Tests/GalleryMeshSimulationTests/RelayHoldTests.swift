@testable import GalleryNode
import Testing
@testable import GalleryMeshSimulation

/// Relaying corked (`RelayHold`, protocol.md, "Relay"): what becomes durable while other
/// writes are in flight crosses a link together; an op with nothing in flight is never held.
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

    /// A steady stream (an op a millisecond, a group commit of 2 ms) goes out at the group commit's
    /// pace: what one commit made durable crosses in one frame, and no op waits for the cap.
    @Test func aStreamCrossesAtTheGroupCommitsPace() throws {
        let (simulation, source, sink) = try Self.pair(hold: .milliseconds(50))
        let before = sink.relayCounts.opsFramesReceived
        let batchesBefore = source.storedBatches
        Self.stream(200, on: source, in: simulation)
        #expect(sink.read { $0.opCount } == source.read { $0.opCount })
        let frames = sink.relayCounts.opsFramesReceived - before
        let commits = source.storedBatches - batchesBefore
        print("RelayHold: 200 ops in \(frames) frames, \(commits) group commits")
        #expect(frames <= commits)
        #expect(frames < 200)
    }

    /// A lone editor pays nothing for batching: each op becomes durable with no other write in
    /// flight, so it goes out at once, however soon after the last one (a 50 ms cap would show).
    @Test func aLoneEditorsOpsAreNeverHeld() throws {
        let (simulation, source, sink) = try Self.pair(hold: .milliseconds(50))
        let scheduler = simulation.scheduler
        for index in 0..<5 {
            try source.perform { _ = try $0.insert([.titled("alone \(index)")], into: "g", at: 0) }
            let made = source.read { $0.version }
            // Group commit (2 ms), one link crossing (10 ms plus up to 2 of jitter): well before 50 ms.
            scheduler.run(until: scheduler.now + 15_000_000)
            #expect(sink.read { $0.version.includes(made) }, "op \(index) was held")
        }
    }

    /// Ops that become durable while another write is in flight are held until the writes drain
    /// (or the cap passes), then cross together: a burst of 40 ops made at once crosses in a few
    /// frames, not 40.
    @Test func aBurstWaitsForTheWritesInFlight() throws {
        let (simulation, source, sink) = try Self.pair(hold: .milliseconds(50))
        let scheduler = simulation.scheduler
        let lane = scheduler.makeLane()
        let before = sink.relayCounts.opsFramesReceived
        let start = scheduler.now
        for index in 0..<40 {
            scheduler.schedule(at: start + UInt64(index) * 100_000, lane: lane) {
                _ = try? source.perform { _ = try $0.insert([.titled("b\(index)")], into: "g", at: 0) }
            }
        }
        scheduler.run(until: start + 200_000_000)
        #expect(sink.read { $0.opCount } == source.read { $0.opCount })
        let frames = sink.relayCounts.opsFramesReceived - before
        print("RelayHold: a burst of 40 ops in \(frames) frames")
        #expect(frames <= 8)
    }
}
