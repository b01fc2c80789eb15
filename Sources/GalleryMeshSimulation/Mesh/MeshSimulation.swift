import Foundation
import GalleryIO
import GalleryModel
import GallerySimulation

/// Hundreds of real nodes (`SyncNode` with its sessions, pipelines, group commit) in one
/// process on one seeded scheduler and a simulated network: a workload of ops at random nodes,
/// faults (crashes with storage that loses unsynced writes, link drops, a partition), then
/// healing, then the invariants: every node converged to the same replica, no op durable
/// somewhere is missing anywhere, no op stored twice. The same parameters replay the same run.
///
/// The simulation runs on one thread (its jobs run from `SimulationScheduler.run`, on the
/// caller's): its state is `LoopBound` to it (`SimulationScheduler.owner`).
package final class MeshSimulation: Sendable {
    /// What runs.
    package let parameters: MeshParameters
    /// The one scheduler every node and link runs on.
    let scheduler = SimulationScheduler()
    /// The links between the nodes.
    let network: SimulatedNetwork
    /// The nodes, by index.
    let nodes: [SimulatedNode]
    /// The simulator's own draws (topology, workload, faults).
    private var random: SeededGenerator { _read { yield boundRandom.value } _modify { yield &boundRandom.value } }
    private let boundRandom: LoopBound<SeededGenerator>
    /// The lane of the simulator's own events (workload, faults).
    private let lane: Int
    /// Every op synced anywhere, first content seen, and when.
    private var durable: [OpID: (op: Op, at: UInt64)] { _read { yield boundDurable.value } _modify { yield &boundDurable.value } }
    private let boundDurable: LoopBound<[OpID: (op: Op, at: UInt64)]>
    /// How many nodes synced each op, and when the last did.
    private var syncedBy: [OpID: Int] { _read { yield boundSyncedBy.value } _modify { yield &boundSyncedBy.value } }
    private let boundSyncedBy: LoopBound<[OpID: Int]>
    /// Per op synced everywhere: how long it took (nanoseconds).
    private var convergence: [UInt64] { _read { yield boundConvergence.value } _modify { yield &boundConvergence.value } }
    private let boundConvergence: LoopBound<[UInt64]>
    /// What the run finds, filled as it goes.
    private var report: MeshReport { _read { yield boundReport.value } _modify { yield &boundReport.value } }
    private let boundReport: LoopBound<MeshReport>

    /// Builds the nodes and the network (nothing runs before `run`).
    package init(_ parameters: MeshParameters) {
        self.parameters = parameters
        boundDurable = LoopBound([:], owner: scheduler.owner)
        boundSyncedBy = LoopBound([:], owner: scheduler.owner)
        boundConvergence = LoopBound([], owner: scheduler.owner)
        var random = SeededGenerator(seed: parameters.seed)
        var dials = parameters.topology.dials(nodes: parameters.nodes, degree: parameters.degree, using: &random)
        if parameters.sabotage == .withholdingParent { Self.makeHub(1, in: &dials, using: &random) }
        boundRandom = LoopBound(random, owner: scheduler.owner)
        network = SimulatedNetwork(
            scheduler: scheduler, seed: parameters.seed,
            conditions: LinkConditions(
                latency: UInt64(parameters.latencyMilliseconds) * 1_000_000,
                jitter: UInt64(parameters.jitterMilliseconds) * 1_000_000, bandwidth: parameters.bandwidth))
        let owner = scheduler.owner
        nodes = dials.enumerated().map { SimulatedNode(index: $0.offset, dials: $0.element, seed: parameters.seed, owner: owner) }
        lane = scheduler.makeLane()
        boundReport = LoopBound(MeshReport(parameters: parameters), owner: scheduler.owner)
        for node in nodes {
            node.store.onSynced = { [unowned self] op in synced(op) }
        }
        if parameters.sabotage == .lyingFsync { nodes[0].lyingFsync = true }
    }

    /// Links `hub` (by its dials) to one node in eight it is not linked to yet, so that the
    /// withholding parent, next to the root, has many children (`Sabotage.withholdingParent`).
    private static func makeHub(_ hub: Int, in dials: inout [[Int]], using random: inout SeededGenerator) {
        let nodes = dials.count
        var linked = Set(dials[hub])
        for (index, peers) in dials.enumerated() where peers.contains(hub) { linked.insert(index) }
        var added = 0
        var attempts = 0
        while added < nodes / 8 && attempts < nodes * 10 {
            attempts += 1
            let peer = Int.random(in: 0..<nodes, using: &random)
            guard peer != hub, linked.insert(peer).inserted else { continue }
            dials[hub].append(peer)
            added += 1
        }
    }

    /// An op was synced on some node's storage for the first time there.
    private func synced(_ op: Op) {
        if durable[op.id] == nil { durable[op.id] = (op, scheduler.now) }
        let count = syncedBy[op.id, default: 0] + 1
        syncedBy[op.id] = count
        if count == nodes.count, let first = durable[op.id] { convergence.append(scheduler.now - first.at) }
    }

    /// Runs the whole simulation and checks the invariants.
    package func run() -> MeshReport {
        let started = Date()
        let second: UInt64 = 1_000_000_000
        // Nodes start over the first second, the workload after a warm-up of five.
        for node in nodes {
            scheduler.schedule(at: random.next() % second, lane: lane) { [self] in node.start(network: network, parameters: parameters) }
        }
        let workStart = 5 * second
        let workEnd = workStart + UInt64(parameters.seconds) * second
        scheduleWorkload(from: workStart, until: workEnd)
        scheduleFaults(from: workStart, until: workEnd)
        scheduler.run(until: workStart)
        let bytesBefore = network.bytesSent
        let tallyBefore = network.tally.snapshot
        let followsRoot = parameters.sabotage == .silentRoot || parameters.sabotage == .trickleRoot
        let followersAtStart = followsRoot ? silentRootFollowers() : 0
        // Every simulated second of the workload: the relay parents form a tree (no loop), and
        // how many nodes have the silent root as their parent. Reading the nodes runs no event.
        var time = workStart
        while time < workEnd {
            time = min(workEnd, time + second)
            scheduler.run(until: time)
            sampleRelayTree()
        }
        if followsRoot { report.silentRootFollowers = (followersAtStart, silentRootFollowers()) }
        for node in nodes {
            guard let counts = node.node?.relayCounts else { continue }
            report.parentsLeft += counts.parentsLeft
            report.rootsDeposed += counts.rootsDeposed
        }
        scheduler.run(until: workEnd)
        let workloadBytes = network.bytesSent - bytesBefore
        report.workloadFrames = network.tally.snapshot.since(tallyBefore)
        // Healing: no more faults; every crashed node restarts, the partition ends.
        network.heal()
        for node in nodes where !node.isUp { node.start(network: network, parameters: parameters) }
        let deadline = workEnd + UInt64(parameters.healSeconds) * second
        time = workEnd
        while time < deadline {
            time += second / 10
            scheduler.run(until: time)
            if isConverged() {
                report.converged = true
                report.healingSeconds = Double(time - workEnd) / 1e9
                break
            }
        }
        check()
        measureBytes(workload: workloadBytes, seconds: Double(workEnd - workStart) / 1e9)
        report.eventsRun = scheduler.eventsRun
        report.traceDigest = scheduler.digest
        report.simulatedSeconds = Double(scheduler.now) / 1e9
        report.wallSeconds = Date().timeIntervalSince(started)
        return report
    }

    /// Ops at random nodes, `opsPerSecond` on average.
    private func scheduleWorkload(from start: UInt64, until end: UInt64) {
        guard parameters.opsPerSecond > 0 else { return }
        let mean = 1_000_000_000 / UInt64(parameters.opsPerSecond)
        var time = start
        while true {
            time += random.next() % (2 * mean + 1)
            guard time < end else { break }
            var target = Int(random.next() % UInt64(nodes.count))
            // The hostile node makes no ops (they would never leave it).
            if let saboteur = parameters.sabotage.saboteur, target == saboteur { target = (saboteur + 1) % nodes.count }
            let choice = random.next()
            scheduler.schedule(at: time, lane: lane) { [self] in makeOp(at: nodes[target], choice: choice) }
        }
    }

    /// One command at a node (a no-op while it is down): an item into its own gallery (created
    /// first), or now and then into another node's gallery it has.
    private func makeOp(at node: SimulatedNode, choice: UInt64) {
        guard let running = node.node else { return }
        let own = "g\(node.index)"
        let other = "g\(Int(choice >> 8) % nodes.count)"
        let made = try? running.perform { replica -> Int in
            if !replica.hasGallery(own) {
                _ = try replica.createGallery(own)
            } else {
                let gallery = choice % 10 < 3 && replica.hasGallery(other) ? other : own
                _ = try replica.insert([.titled("op \(choice % 1_000_000)")], into: gallery, at: 0)
            }
            return 1
        }
        report.opsMade += made ?? 0
    }

    /// Creates a gallery at a node (the sabotage's ops).
    private func makeGallery(_ name: String, at node: SimulatedNode) {
        let made: Void?? = try? node.node?.perform { replica in _ = try replica.createGallery(name) }
        if made != nil { report.opsMade += 1 }
    }

    /// Crashes (churn), link drops and the partition, at seeded times within the workload.
    private func scheduleFaults(from start: UInt64, until end: UInt64) {
        let span = end - start
        let minutes = Double(span) / 60e9
        let crashes = Int((parameters.churnPerMinute * Double(nodes.count) * minutes).rounded())
        for _ in 0..<crashes {
            let time = start + random.next() % span
            let choice = random.next()
            let downtime = 1_000_000_000 + random.next() % 9_000_000_000
            scheduler.schedule(at: time, lane: lane) { [self] in crashOne(choice: choice, downtime: downtime) }
        }
        let drops = Int((Double(parameters.linkDropsPerMinute) * minutes).rounded())
        for _ in 0..<drops {
            let time = start + random.next() % span
            scheduler.schedule(at: time, lane: lane) { [self] in
                if network.dropLink(using: &random) { report.linkDrops += 1 }
            }
        }
        if parameters.partition {
            let sides = nodes.map { _ in Int(random.next() % 2) }
            let from = start + span / 3
            scheduler.schedule(at: from, lane: lane) { [self] in network.partition(sides) }
            scheduler.schedule(at: from + span / 5, lane: lane) { [self] in network.heal() }
        }
        if parameters.sabotage == .lyingFsync {
            // Node 0 makes an op, which becomes durable and goes out; then it crashes, forgets
            // it, and reuses its ID for another op.
            let time = start + span / 2
            scheduler.schedule(at: time, lane: lane) { [self] in
                // Its storage loses that op at the crash, whatever else it stored meanwhile.
                nodes[0].store.markLie()
                makeGallery("before the crash", at: nodes[0])
            }
            scheduler.schedule(at: time + 100_000_000, lane: lane) { [self] in
                nodes[0].crash(network: network)
                report.crashes += 1
                nodes[0].start(network: network, parameters: parameters)
                makeGallery("after the crash", at: nodes[0])
            }
        }
    }

    /// Crashes a random running node; it restarts after `downtime`.
    private func crashOne(choice: UInt64, downtime: UInt64) {
        let up = nodes.filter(\.isUp)
        guard !up.isEmpty else { return }
        let node = up[Int(choice % UInt64(up.count))]
        node.crash(network: network)
        report.crashes += 1
        scheduler.schedule(after: downtime, lane: lane) { [self] in node.start(network: network, parameters: parameters) }
    }

    /// One look at the relay parents of the running nodes: a chain of parents that comes back to a
    /// node is a loop (recorded, with the time); with a hostile node (`Sabotage.saboteur`), how
    /// many honest nodes have it as their parent.
    private func sampleRelayTree() {
        var parentOf: [ReplicaID: ReplicaID] = [:]
        for node in nodes {
            if let parent = node.node?.relayParent { parentOf[node.replicaID] = parent }
        }
        for start in parentOf.keys.sorted() {
            var seen: Set<ReplicaID> = [start]
            var current = start
            while let next = parentOf[current] {
                guard seen.insert(next).inserted else {
                    report.relayLoops.append("\(String(format: "%.0f", Double(scheduler.now) / 1e9)) s: \(start) loops through \(next)")
                    break
                }
                current = next
            }
        }
        if let saboteur = parameters.sabotage.saboteur {
            let hijacker = nodes[saboteur].replicaID
            report.silentRootChildren.append(parentOf.values.filter { $0 == hijacker }.count)
        }
    }

    /// How many running nodes follow node 0 as the root of their relay tree.
    private func silentRootFollowers() -> Int {
        let hijacker = nodes[0].replicaID
        return nodes.dropFirst().filter { $0.node?.relayPlace?.root == hijacker }.count
    }

    /// Whether every node runs and holds the same ops with nothing waiting.
    private func isConverged() -> Bool {
        guard let first = nodes[0].node else { return false }
        let version = first.read { $0.version }
        for node in nodes {
            guard let running = node.node else { return false }
            let same = running.read { $0.version == version && $0.bufferedCount == 0 }
            if !same { return false }
        }
        return true
    }

    /// The invariants and the figures.
    private func check() {
        report.opsDurable = durable.count
        var reference: Set<Op>?
        for node in nodes {
            guard let running = node.node else {
                report.divergentNodes.append(node.index)
                continue
            }
            let ops = running.read { Set($0.ops) }
            let byID = Dictionary(ops.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
            for (id, entry) in durable.sorted(by: { $0.key < $1.key }) where byID[id] != entry.op {
                report.lostDurable.append("n\(node.index) lacks \(id)")
            }
            report.duplicates += node.store.duplicates.count
            if let reference {
                if ops != reference { report.divergentNodes.append(node.index) }
            } else {
                reference = ops
            }
        }
        if !report.divergentNodes.isEmpty {
            report.converged = false
            report.healingSeconds = nil
        }
        let sorted = convergence.sorted()
        if !sorted.isEmpty {
            func percentile(_ p: Double) -> Double {
                Double(sorted[min(sorted.count - 1, Int((p * Double(sorted.count)).rounded(.up)) - 1)]) / 1e6
            }
            report.convergenceP50Milliseconds = percentile(0.5)
            report.convergenceP99Milliseconds = percentile(0.99)
            report.convergenceMaxMilliseconds = Double(sorted.last!) / 1e6
        }
        if let sample = nodes.compactMap(\.node).first {
            report.encodedOpBytes = sample.read { $0.opCount == 0 ? 0 : Double($0.encodedLogSize) / Double($0.opCount) }
        }
    }

    /// Bytes on the wire per op per receiving node: everything sent during the workload, and that
    /// less what the mesh sends when idle (heartbeats, the periodic version exchange), measured
    /// over 20 quiet simulated seconds after convergence.
    private func measureBytes(workload: Int, seconds: Double) {
        let receivers = Double(max(1, nodes.count - 1))
        let ops = Double(max(1, durable.count))
        report.bytesPerOpPerNode = Double(workload) / ops / receivers
        guard report.converged else { return }
        let quiet: UInt64 = 20_000_000_000
        let before = network.bytesSent
        let tallyBefore = network.tally.snapshot
        scheduler.run(until: scheduler.now + quiet)
        report.idleFrames = network.tally.snapshot.since(tallyBefore)
        report.idleSeconds = Double(quiet) / 1e9
        let idlePerSecond = Double(network.bytesSent - before) / (Double(quiet) / 1e9)
        report.idleBytesPerNodePerSecond = idlePerSecond / Double(nodes.count)
        report.opBytesPerOpPerNode = max(0, Double(workload) - idlePerSecond * seconds) / ops / receivers
    }
}
