import GalleryWire
import Testing
@testable import GalleryMeshSimulation

/// What the mesh costs on the wire: at rest, per node, whatever the number of nodes;
/// and per op, at a CI-sized mesh. The runs are seeded, so the figures are exact from run to run.
@Suite struct MeshSimulationBytesTests {
    /// A mesh of `nodes` in which about every node made ops (so every version vector names about
    /// every replica), then measured at rest.
    static func idleRun(nodes: Int) -> MeshReport {
        var parameters = MeshParameters()
        parameters.seed = 3
        parameters.nodes = nodes
        parameters.seconds = 2
        parameters.opsPerSecond = 2 * nodes
        return MeshSimulation(parameters).run()
    }

    @Test func idleTrafficPerNodeDoesNotGrowWithTheMesh() throws {
        let small = Self.idleRun(nodes: 30), large = Self.idleRun(nodes: 90)
        for report in [small, large] {
            #expect(report.violations.isEmpty, "\(report.lines)")
            // Every node made ops: the vectors name (nearly) every replica.
            #expect(report.opsDurable > report.parameters.nodes * 3)
            // At rest only heartbeats and digests: no version vector crosses.
            let types = Set(report.idleFrames.byType.keys)
            #expect(!types.contains(FrameType.syncRequest.rawValue) && !types.contains(FrameType.caughtUp.rawValue), "\(report.lines)")
            #expect(types.contains(FrameType.versionDigest.rawValue))
        }
        let perNode = try (#require(small.idleBytesPerNodePerSecond), #require(large.idleBytesPerNodePerSecond))
        print("idle bytes per node per s: 30 nodes \(perNode.0), 90 nodes \(perNode.1)")
        // Heartbeats and digests per link; the random topology has about 4 links per node at any
        // size. Full vectors (about 10 bytes per replica) would triple the larger mesh's figure.
        #expect(perNode.1 < perNode.0 * 1.15)
        #expect(perNode.1 < 150)
    }

    @Test func bytesPerOpAtACISizedMesh() {
        var parameters = MeshParameters()
        parameters.seed = 1
        parameters.nodes = 40
        parameters.seconds = 15
        parameters.opsPerSecond = 10
        let report = MeshSimulation(parameters).run()
        print(report.lines.joined(separator: "\n"))
        #expect(report.violations.isEmpty)
        // 66.2 at this commit (one tree for every origin, compact ops; 114.6 with per-origin trees,
        // whose first ops flooded): about one copy of each op per node, one record around it, and
        // little besides. More means the relay or the version exchange sends more than it did.
        #expect(report.bytesPerOpPerNode < 72, "\(report.lines)")
        let copies = Double(report.workloadFrames.byType[FrameType.opsCompact.rawValue]?.frames ?? 0)
            / Double(report.opsDurable * (parameters.nodes - 1))
        #expect(copies < 1.1, "\(copies) ops frames per op per node: \(report.lines)")
        let records = report.workloadFrames.records.bytes, total = report.workloadFrames.totalBytes
        #expect(total > 0 && records < total / 2)
    }
}
