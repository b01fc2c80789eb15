import Foundation
import GallerySimulation
import Synchronization

/// `gallery-bench chaos`: real `gallery serve` processes under a seeded schedule of commands and
/// faults for a bounded time, then healed and checked. Prints one summary line; exits 1
/// with the violations and the command that replays the seed when any check fails.
enum ChaosRun {
    /// Runs the suite with the arguments after `chaos`; returns the exit status.
    static func main(_ arguments: [String]) throws(ChaosError) -> Int32 {
        let options = try ChaosOptions.parse(arguments)
        var random = SeededGenerator(seed: options.seed)
        let mesh = Bool.random(using: &random)
        let cluster = try ChaosCluster(count: options.nodes, mesh: mesh, seed: options.seed)
        writeLine("chaos: seed \(options.seed), \(options.nodes) nodes (\(mesh ? "mesh" : "chain")), "
            + "\(Int(options.seconds)) s, folder \(cluster.folder.path)", to: .standardError)
        let ledger = ChaosLedger()
        let deadline = Date().addingTimeInterval(options.seconds)
        let group = DispatchGroup()
        for index in 0..<options.workers {
            group.enter()
            Thread.detachNewThread {
                var worker = ChaosWorker(index: index, cluster: cluster, ledger: ledger, options: options)
                worker.run(until: deadline)
                group.leave()
            }
        }
        let faultFailures = FaultFailures()
        group.enter()
        Thread.detachNewThread {
            var faults = ChaosFaults(cluster: cluster, ledger: ledger, seed: options.seed)
            faults.run(until: deadline)
            faultFailures.set(faults.failures)
            group.leave()
        }
        group.wait()
        let verifier = ChaosVerifier(cluster: cluster, options: options)
        let healed = verifier.heal()
        let record = ledger.snapshot
        let violations = faultFailures.get() + verifier.check(healed, record)
        cluster.stop()

        let final = cluster.nodes.lazy.compactMap { healed.listings[$0.name] ?? nil }.first
        let counts = record.counts
        let summary = [
            "\"suite\": \"chaos\"", "\"seed\": \(options.seed)", "\"seconds\": \(Int(options.seconds))",
            "\"nodes\": \(options.nodes)", "\"topology\": \"\(mesh ? "mesh" : "chain")\"",
            "\"commands\": \(counts.issued)", "\"ops\": \(counts.acknowledged)", "\"drags\": \(counts.drags)",
            "\"transfers\": \(counts.transfers)", "\"transfersFailed\": \(counts.transfersFailed)",
            "\"transfersTimedOut\": \(counts.transfersTimedOut)", "\"kills\": \(counts.kills)", "\"disconnects\": \(counts.disconnects)",
            "\"pauses\": \(counts.pauses)", "\"finalItems\": \(final?.items.count ?? -1)",
            "\"healSeconds\": \(String(format: "%.1f", healed.seconds))", "\"violations\": \(violations.count)",
        ]
        writeLine("{" + summary.joined(separator: ", ") + "}", to: .standardOutput)
        guard violations.isEmpty else {
            for violation in violations.prefix(100) { writeLine("violation: \(violation)", to: .standardError) }
            writeLine("gallery-bench: chaos: \(violations.count) violations with seed \(options.seed); replay: "
                + "\(options.replayCommand); nodes' logs and commands.log kept in \(cluster.folder.path)", to: .standardError)
            return 1
        }
        if options.keep {
            writeLine("chaos: kept \(cluster.folder.path)", to: .standardError)
        } else {
            try? FileManager.default.removeItem(at: cluster.folder)
        }
        return 0
    }
}

/// The fault thread's findings, handed to the main thread once it ends.
final class FaultFailures: Sendable {
    private let failures = Mutex<[String]>([])

    func set(_ value: [String]) { failures.withLock { $0 = value } }

    func get() -> [String] { failures.withLock { $0 } }
}
