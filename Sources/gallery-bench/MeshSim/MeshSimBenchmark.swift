import Foundation
import GalleryMeshSimulation

/// `gallery-bench mesh-sim`: one deterministic mesh simulation (`GalleryMeshSimulation`) of real
/// nodes on a simulated network; prints its summary line, and when an invariant broke, each
/// failure and the one-line command that replays the run exactly.
enum MeshSimBenchmark {
    /// Runs the simulation; exit status 1 when an invariant broke.
    static func run(_ arguments: [String]) throws(BenchFailure) -> Int32 {
        let parameters: MeshParameters
        do {
            parameters = try MeshParameters.parse(arguments)
        } catch {
            throw BenchFailure.usage("mesh-sim: \(error.message)")
        }
        let cpuBefore = CPUTime.currentThread()
        let report = MeshSimulation(parameters).run()
        let cpu = CPUTime.currentThread() - cpuBefore
        var lines = report.lines
        // CPU time too: a shared machine inflates the wall time, not this (the run is one thread).
        lines[0] += " cpu_s=\(String(format: "%.2f", cpu))"
        for line in lines { writeLine(line, to: .standardOutput) }
        return report.violations.isEmpty ? 0 : 1
    }
}
