import GalleryNode
import GalleryWire

/// What a mesh simulation run measured and which invariants it broke.
package struct MeshReport: Sendable {
    /// What ran (and how to replay it).
    package var parameters: MeshParameters
    /// Ops made by commands (each acknowledged durable at its node).
    package var opsMade = 0
    /// Ops synced on some node's storage at some point (acknowledged durable somewhere).
    package var opsDurable = 0
    /// Whether every node held the same replica after healing.
    package var converged = false
    /// Simulated seconds from the end of the workload and faults to convergence.
    package var healingSeconds: Double?
    /// Per op, from durable at its node to synced on every node (simulated milliseconds).
    package var convergenceP50Milliseconds: Double?
    /// The same, 99th percentile.
    package var convergenceP99Milliseconds: Double?
    /// The same, slowest op.
    package var convergenceMaxMilliseconds: Double?
    /// Bytes written onto links (everything: handshakes, ops, heartbeats) per op per receiving node.
    package var bytesPerOpPerNode: Double = 0
    /// The same, less what the mesh sends when idle (heartbeats, version exchange): what the ops
    /// themselves cost.
    package var opBytesPerOpPerNode: Double?
    /// What an idle node sends per second (heartbeats, the periodic version exchange).
    package var idleBytesPerNodePerSecond: Double?
    /// What the nodes wrote during the workload, by frame type, and the records around them.
    package var workloadFrames = WireTally.Snapshot()
    /// What the nodes wrote over the quiet seconds after convergence (`idleSeconds`).
    package var idleFrames = WireTally.Snapshot()
    /// How long the idle traffic was measured (simulated seconds; 0 when it was not).
    package var idleSeconds: Double = 0
    /// The average encoded size of an op.
    package var encodedOpBytes: Double = 0
    /// Node crashes (each followed by a restart).
    package var crashes = 0
    /// With `Sabotage.silentRoot` or `.trickleRoot`: how many nodes followed node 0 as their root
    /// at the workload's start (the hijack took hold) and at its end.
    package var silentRootFollowers: (start: Int, end: Int)?
    /// With a hostile node (`Sabotage.saboteur`): how many nodes had it as their relay parent,
    /// each simulated second of the workload.
    package var silentRootChildren: [Int] = []
    /// Relay parents left for withholding, and roots deposed, over the nodes (running at the
    /// workload's end) since they started.
    package var parentsLeft = 0
    package var rootsDeposed = 0
    /// Relay parents that formed a loop when looked at (each second of the workload): when, and
    /// where (ops pushed along a loop never leave it; `SilentRootSimulationTests` asserts none).
    package var relayLoops: [String] = []
    /// Links reset as lost.
    package var linkDrops = 0
    /// Ops durable somewhere but missing (or different) on a node at the end: node and op.
    package var lostDurable: [String] = []
    /// Ops stored twice on one node.
    package var duplicates = 0
    /// Nodes whose replica differs from node 0's at the end.
    package var divergentNodes: [Int] = []
    /// Scheduler events run.
    package var eventsRun = 0
    /// The digest of every event run: equal for two runs of the same parameters.
    package var traceDigest: UInt64 = 0
    /// Simulated time at the end.
    package var simulatedSeconds: Double = 0
    /// Wall-clock time the run took.
    package var wallSeconds: Double = 0

    /// The invariants broken, one line each (empty when the run passed).
    package var violations: [String] {
        var lines: [String] = []
        if !converged { lines.append("not converged within \(parameters.healSeconds) s of healing: nodes \(divergentNodes.prefix(10)) differ") }
        if !lostDurable.isEmpty { lines.append("\(lostDurable.count) durable ops lost: \(lostDurable.prefix(5).joined(separator: ", "))") }
        if duplicates > 0 { lines.append("\(duplicates) ops stored twice") }
        return lines
    }

    /// The one-line summary, then the replay command when an invariant broke.
    package var lines: [String] {
        func format(_ value: Double?) -> String { value.map { String(format: "%.1f", $0) } ?? "-" }
        var lines = [
            "mesh-sim seed=\(parameters.seed) nodes=\(parameters.nodes) topology=\(parameters.topology.rawValue) "
                + "ops=\(opsMade) durable=\(opsDurable) converged=\(converged) healing_s=\(format(healingSeconds)) "
                + "convergence_ms p50=\(format(convergenceP50Milliseconds)) p99=\(format(convergenceP99Milliseconds)) "
                + "max=\(format(convergenceMaxMilliseconds)) bytes_per_op_per_node=\(format(bytesPerOpPerNode)) "
                + "op_bytes_per_op_per_node=\(format(opBytesPerOpPerNode)) idle_bytes_per_node_s=\(format(idleBytesPerNodePerSecond)) "
                + "op_bytes=\(format(encodedOpBytes)) lost=\(lostDurable.count) duplicates=\(duplicates) crashes=\(crashes) "
                + "link_drops=\(linkDrops) events=\(eventsRun) digest=\(String(traceDigest, radix: 16)) "
                + "simulated_s=\(format(simulatedSeconds)) wall_s=\(String(format: "%.2f", wallSeconds))",
        ]
        if let saboteur = parameters.sabotage.saboteur {
            let followed = silentRootFollowers.map {
                "\($0.start) of \(parameters.nodes - 1) nodes followed it at the workload's start, \($0.end) at its end; "
            } ?? ""
            lines.append("\(parameters.sabotage.rawValue) n\(saboteur): " + followed
                + "its children each second: \(silentRootChildren.map { "\($0)" }.joined(separator: " "))")
        }
        if parentsLeft + rootsDeposed > 0 { lines.append("relay: \(parentsLeft) parents left, \(rootsDeposed) roots deposed (by the nodes that found them)") }
        if !relayLoops.isEmpty { lines.append("relay parents formed a loop \(relayLoops.count) times: \(relayLoops.prefix(3).joined(separator: ", "))") }
        lines.append(breakdown("workload bytes per op per node", workloadFrames, per: Double(max(1, opsDurable) * max(1, parameters.nodes - 1))))
        if idleSeconds > 0 {
            lines.append(breakdown("idle bytes per node per s", idleFrames, per: idleSeconds * Double(max(1, parameters.nodes))))
        }
        for violation in violations { lines.append("FAILED: \(violation)") }
        if !violations.isEmpty { lines.append("replay: \(parameters.commandLine)") }
        return lines
    }

    /// One line: `title`, then per frame type (largest first) its bytes and frames over `per`,
    /// and the records' headers and tags.
    private func breakdown(_ title: String, _ snapshot: WireTally.Snapshot, per divisor: Double) -> String {
        let entries = snapshot.byType.sorted { ($0.value.bytes, $1.key) > ($1.value.bytes, $0.key) }.map { type, count in
            let name = FrameType(rawValue: type).map { "\($0)" } ?? String(format: "0x%02x", type)
            return "\(name)=" + String(format: "%.2f", Double(count.bytes) / divisor)
                + "(" + String(format: "%.3f", Double(count.frames) / divisor) + " frames)"
        }
        let records = "records=" + String(format: "%.2f", Double(snapshot.records.bytes) / divisor)
            + "(" + String(format: "%.3f", Double(snapshot.records.frames) / divisor) + ")"
        return "\(title): total=" + String(format: "%.2f", Double(snapshot.totalBytes) / divisor) + " " + records + " "
            + entries.joined(separator: " ")
    }
}
