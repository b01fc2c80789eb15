import Testing
@testable import GalleryMeshSimulation

/// The deterministic mesh simulation: real nodes on a seeded scheduler and simulated network.
@Suite struct MeshSimulationTests {
    /// A 50-node mesh for a simulated minute with every fault: the CI-sized run.
    static var faulty: MeshParameters {
        var parameters = MeshParameters()
        parameters.seed = 16
        parameters.nodes = 50
        parameters.seconds = 60
        parameters.opsPerSecond = 5
        parameters.churnPerMinute = 0.2
        parameters.linkDropsPerMinute = 20
        parameters.partition = true
        return parameters
    }

    /// A small mesh with faults, for the replay tests.
    static var small: MeshParameters {
        var parameters = faulty
        parameters.nodes = 12
        parameters.seconds = 30
        parameters.churnPerMinute = 0.3
        return parameters
    }

    @Test func faultRunConverges() {
        let report = MeshSimulation(Self.faulty).run()
        print(report.lines.joined(separator: "\n"))
        #expect(report.violations.isEmpty)
        #expect(report.converged)
        #expect(report.crashes == 10)
        #expect(report.linkDrops > 0)
        #expect(report.opsMade > 200)
        #expect(report.opsDurable >= report.opsMade)
        #expect(report.convergenceP99Milliseconds != nil)
    }

    @Test func sameSeedReplaysExactly() {
        let first = MeshSimulation(Self.small).run()
        let second = MeshSimulation(Self.small).run()
        #expect(first.violations.isEmpty)
        #expect(first.traceDigest == second.traceDigest)
        #expect(first.eventsRun == second.eventsRun)
        #expect(first.opsMade == second.opsMade)
        #expect(first.convergenceP99Milliseconds == second.convergenceP99Milliseconds)
        var other = Self.small
        other.seed += 1
        #expect(MeshSimulation(other).run().traceDigest != first.traceDigest)
    }

    @Test func brokenInvariantIsReportedWithItsSeed() {
        var parameters = Self.small
        parameters.churnPerMinute = 0
        parameters.partition = false
        parameters.linkDropsPerMinute = 0
        parameters.healSeconds = 20
        parameters.sabotage = .lyingFsync
        let report = MeshSimulation(parameters).run()
        print(report.lines.joined(separator: "\n"))
        #expect(!report.violations.isEmpty)
        #expect(!report.converged)
        #expect(!report.lostDurable.isEmpty)
        #expect(report.lines.contains("replay: \(parameters.commandLine)"))
        #expect(parameters.commandLine.hasPrefix("gallery-bench mesh-sim --seed \(parameters.seed) --nodes \(parameters.nodes) "))
    }

    @Test func commandLineReadsBack() throws {
        var parameters = Self.small
        parameters.sabotage = .lyingFsync
        parameters.topology = .star
        let words = parameters.commandLine.split(separator: " ").map(String.init)
        #expect(try MeshParameters.parse(Array(words.dropFirst(2))) == parameters)
        #expect(throws: MeshParameters.UsageError.self) { try MeshParameters.parse(["--nodes", "x"]) }
        #expect(throws: MeshParameters.UsageError.self) { try MeshParameters.parse(["--bogus", "1"]) }
    }

    @Test(arguments: MeshTopology.allCases)
    func everyTopologyConverges(_ topology: MeshTopology) {
        var parameters = MeshParameters()
        parameters.nodes = 20
        parameters.seconds = 10
        parameters.topology = topology
        let report = MeshSimulation(parameters).run()
        #expect(report.violations.isEmpty, "\(report.lines)")
        #expect(report.opsMade > 20)
    }

    /// A crash keeps exactly what was synced: ops applied but still waiting for the group
    /// commit's fsync are gone after the restart, and no peer ever saw them; synced ones stay.
    @Test func crashLosesOnlyUnsyncedWrites() throws {
        var parameters = MeshParameters()
        parameters.nodes = 2
        parameters.fsyncMilliseconds = 50
        let simulation = MeshSimulation(parameters)
        let scheduler = simulation.scheduler
        let (a, b) = (simulation.nodes[0], simulation.nodes[1])
        a.start(network: simulation.network, parameters: parameters)
        b.start(network: simulation.network, parameters: parameters)
        scheduler.run(until: 2_000_000_000)
        #expect(a.node?.peers.first?.state == .live)
        try a.node?.perform { _ = try $0.createGallery("kept") }
        scheduler.run(until: scheduler.now + 100_000_000)
        try a.node?.perform { _ = try $0.createGallery("lost") }
        scheduler.run(until: scheduler.now + 10_000_000)
        #expect(a.node?.read { $0.hasGallery("lost") } == true)
        a.crash(network: simulation.network)
        #expect(a.store.synced.count == 1)
        a.start(network: simulation.network, parameters: parameters)
        #expect(a.node?.read { $0.hasGallery("kept") && !$0.hasGallery("lost") } == true)
        scheduler.run(until: scheduler.now + 3_000_000_000)
        #expect(b.node?.read { $0.hasGallery("kept") && !$0.hasGallery("lost") } == true)
        #expect(b.store.synced.count == 1)
        #expect(a.store.duplicates.isEmpty && b.store.duplicates.isEmpty)
    }

    /// A restarted node keeps its static key (as `DIR/node.key` does), so the peer that dialed it
    /// and pinned that key accepts it again: with a new key per incarnation the redial is refused
    /// (identity mismatch) and the node's ops never reach that peer.
    @Test func restartedNodeKeepsItsKeyAndIsRedialed() throws {
        var parameters = MeshParameters()
        parameters.nodes = 2
        let simulation = MeshSimulation(parameters)
        let scheduler = simulation.scheduler
        // Node 0 dials node 1 (the ring of two).
        let (a, b) = (simulation.nodes[0], simulation.nodes[1])
        #expect(a.dials == [1])
        a.start(network: simulation.network, parameters: parameters)
        b.start(network: simulation.network, parameters: parameters)
        scheduler.run(until: 2_000_000_000)
        let before = try #require(a.node?.peers.first { $0.state == .live }?.nodeID)
        b.crash(network: simulation.network)
        b.start(network: simulation.network, parameters: parameters)
        try b.node?.perform { _ = try $0.createGallery("after the restart") }
        scheduler.run(until: scheduler.now + 10_000_000_000)
        #expect(a.node?.peers.first { $0.state == .live }?.nodeID == before)
        #expect(a.node?.read { $0.hasGallery("after the restart") } == true)
    }
}
