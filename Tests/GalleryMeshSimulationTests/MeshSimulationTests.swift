import Testing
@testable import GalleryMeshSimulation

@Suite struct MeshSimulationTests {
    @Test func quiet() {
        var parameters = MeshParameters()
        parameters.nodes = 10
        parameters.seconds = 20
        let report = MeshSimulation(parameters).run()
        print(report.lines.joined(separator: "\n"))
        #expect(report.violations.isEmpty)
    }
}
