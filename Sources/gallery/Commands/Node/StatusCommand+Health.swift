import GalleryIO
import GalleryWire

/// The lines of human `status` about what the node could not do.
extension StatusCommand {
    /// One line per problem: storage, missing ops, divergent ops; one per repair made at start;
    /// nothing when all is well.
    static func healthLines(_ health: NodeHealth) -> String {
        var lines: [String] = []
        if let storage = health.storage {
            lines.append("storage: \(storage); changes refused, \(health.unstoredOps) ops not yet stored nor sent, retrying")
        }
        if !health.missingOps.isEmpty {
            lines.append("missing ops: \(health.missingOps.joined(separator: ", ")) (lost or not received; asked from peers)")
        }
        if health.divergentOpCount > 0 {
            let ids = health.divergentOps.map { "\($0.id) from \($0.peer)" }.joined(separator: ", ")
            lines.append("divergent ops refused: \(health.divergentOpCount) (\(ids))")
        }
        for conflict in health.identityConflicts ?? [] {
            lines.append("identity conflict: \(conflict)")
        }
        for repair in health.repaired ?? [] {
            lines.append("repaired at start: \(repair)")
        }
        return lines.map { TerminalText.escaped($0) + "\n" }.joined()
    }
}
