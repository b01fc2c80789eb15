import Testing
@testable import GalleryMeshSimulation

/// A member that holds the space's secret, claims the oldest root of the relay tree and passes
/// nothing on (issue 26, protocol.md sections 11 and 13): the mesh routes around it, and deposes it.
@Suite struct SilentRootSimulationTests {
    @Test("A member that claims the oldest root and withholds every op, announcement and catch-up answer delays ops by at most 2 s (p99)",
          arguments: [1, 2] as [UInt64])
    func silentRootIsRoutedAround(seed: UInt64) throws {
        var parameters = MeshParameters()
        parameters.seed = seed
        parameters.nodes = 40
        parameters.seconds = 30
        parameters.opsPerSecond = 10
        parameters.sabotage = .silentRoot
        let report = MeshSimulation(parameters).run()
        print(report.lines.joined(separator: "\n"))
        #expect(report.violations.isEmpty)
        #expect(report.converged)
        // The hijack took hold: every honest node followed the hostile root when ops began.
        let followers = try #require(report.silentRootFollowers)
        #expect(followers.start >= parameters.nodes - 1)
        // Before a stalled first catch-up stopped holding back grafts, p99 was 5.3 s (seed 1).
        #expect((report.convergenceP99Milliseconds ?? .infinity) <= 2_000)
        // One look at the tree each second of the workload: a child of the silent root deposed
        // it, the mesh followed, and the root was left with no child and no follower.
        #expect(report.silentRootChildren.count == parameters.seconds)
        #expect(report.silentRootChildren.suffix(parameters.seconds / 2).allSatisfy { $0 == 0 }, "\(report.silentRootChildren)")
        #expect(followers.end == 0)
        // Relay parents never formed a loop, looked at every second.
        #expect(report.relayLoops.isEmpty, "\(report.relayLoops.prefix(3))")
    }
}
