import Foundation
import GalleryIO
import GalleryWire

/// `status [--json]`: version vector, ops, peers, sync state, transfers and health.
struct StatusCommand: NodeSubcommand {
    static let name = ControlCommandName.status
    static let usage = "usage: gallery -C DIR status [--json]"
    let json: Bool

    init(parsing arguments: inout ArgumentList) {
        json = arguments.flag("--json")
    }

    var command: ControlCommand { .status }

    func render(_ reply: ControlReply) -> String {
        guard case .status(let status) = reply else { return "" }
        if json { return JSONOutput.line(status) }
        let version = status.version.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)" }.joined(separator: " ")
        return "\(TerminalText.escaped(status.name)) (node \(status.nodeID ?? "?"), replica \(status.replica)) listening on \(status.address ?? "-")\n"
            + "ops: \(status.ops), waiting for dependencies: \(status.buffered)\n"
            + "version: \(version)\n"
            + (status.treeRoot.map { root in
                status.treeHops == 0 ? "relay tree: this node is the root\n" : "relay tree: root \(root), \(status.treeHops ?? 0) links away\n"
            } ?? "")
            + (status.health.map(Self.healthLines) ?? "")
            + (status.storage.map(Self.storageLines) ?? "")
            + (status.keptInPlace.map(Self.keptInPlaceLines) ?? "")
            + status.peers.map {
                "peer \(TerminalText.escaped($0.name ?? "?")) [\($0.nodeID ?? "?")] \($0.address) \($0.direction) \($0.state)"
                    + ($0.relay.map { " \($0)" } ?? "") + "\n"
            }.joined()
            + status.transfers.map {
                "transfer \($0.transfer) \($0.move ? "move" : "copy") of \($0.source): \($0.done)/\($0.total) bytes, "
                    + "\(TerminalText.escaped($0.state)), \(Int($0.secondsLeft.rounded())) s left\n"
            }.joined()
    }

    /// `kept in place: N files, M cannot serve their bytes`, then one line per such file.
    private static func keptInPlaceLines(_ kept: KeptInPlaceListing) -> String {
        "kept in place: \(kept.files) files" + (kept.problems.isEmpty ? "\n" : ", \(kept.problems.count) cannot serve their bytes\n")
            + kept.problems.map { "in place: \(TerminalText.escaped($0.path)): \($0.reason)\n" }.joined()
    }
}
