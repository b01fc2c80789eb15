import Foundation
import GallerySimulation

/// The fault thread of the chaos schedule: at random moments, kill -9 of a running node and its
/// restart on the same address, a node told to drop its connection to a neighbour, or a node
/// paused with SIGSTOP past the 5 s heartbeat timeout and resumed with SIGCONT. Each round of
/// faults holds every kind once, in a seeded order, so that even a short run has each.
struct ChaosFaults {
    /// A kind of fault.
    enum Kind: CaseIterable {
        case kill, disconnect, pause
    }

    let cluster: ChaosCluster
    let ledger: ChaosLedger
    var random: SeededGenerator
    /// Nodes that did not restart (with the reason): findings, reported as violations.
    private(set) var failures: [String] = []

    init(cluster: ChaosCluster, ledger: ChaosLedger, seed: UInt64) {
        self.cluster = cluster
        self.ledger = ledger
        self.random = SeededGenerator(seed: seed &* 7_919 &+ 17)
    }

    /// Injects faults until `deadline`; every fault is healed before the next one starts.
    mutating func run(until deadline: Date) {
        var round: [Kind] = []
        while true {
            let gap = Double.random(in: 0.3...2.0, using: &random)
            guard Date().addingTimeInterval(gap) < deadline else { return }
            Thread.sleep(forTimeInterval: gap)
            if round.isEmpty { round = (Kind.allCases + [.disconnect]).shuffled(using: &random) }
            let kind = round.removeLast()
            let running = cluster.nodes.filter { $0.currentState == .running }
            guard let node = running.randomElement(using: &random) else { continue }
            switch kind {
            case .kill:
                node.kill9()
                ledger.update { $0.counts.kills += 1 }
                cluster.log("\(String(format: "%.3f", cluster.elapsed)) fault: kill -9 \(node.name)")
                Thread.sleep(forTimeInterval: Double.random(in: 0.1...3.0, using: &random))
                restart(node)
            case .disconnect:
                guard let peer = cluster.neighbours(of: node).randomElement(using: &random) else { continue }
                if cluster.gallery(node, ["disconnect", peer], timeout: 15).ok {
                    ledger.update { $0.counts.disconnects += 1 }
                }
            case .pause:
                node.pause()
                ledger.update { $0.counts.pauses += 1 }
                cluster.log("\(String(format: "%.3f", cluster.elapsed)) fault: SIGSTOP \(node.name)")
                Thread.sleep(forTimeInterval: Double.random(in: 5.5...8.0, using: &random))
                node.resume()
                cluster.log("\(String(format: "%.3f", cluster.elapsed)) fault: SIGCONT \(node.name)")
            }
        }
    }

    /// Restarts a killed node, noting a failure to start as a finding.
    private mutating func restart(_ node: ChaosNode) {
        do {
            try node.start()
            cluster.log("\(String(format: "%.3f", cluster.elapsed)) fault: restarted \(node.name)")
        } catch {
            failures.append("\(node.name) did not restart after kill -9: \(error.localizedDescription)")
        }
    }
}
