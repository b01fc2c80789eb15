import Foundation
import GalleryIO
import GalleryWire

/// `peers [--json]`: the peers of the address book, connected or not, one a line: name, node ID, address,
/// direction, state; for a connected peer, its link in the relay tree (parent, child, eager,
/// grafted, lazy); for a peer not connected, when the node dials it again and why the last attempt
/// failed.
struct PeersCommand: NodeSubcommand {
    static let name = ControlCommandName.peers
    static let usage = "usage: gallery -C DIR peers [--json]"
    let json: Bool

    init(parsing arguments: inout ArgumentList) throws(CommandFailure) {
        json = arguments.flag("--json")
    }

    var command: ControlCommand { .peers }

    func render(_ reply: ControlReply) -> String {
        guard case .peers(let peers) = reply else { return "" }
        if json { return JSONOutput.line(peers) }
        return peers.map { peer in
            var line = "\(TerminalText.escaped(peer.name ?? "?"))\t\(peer.nodeID ?? "?")\t\(peer.address)\t\(peer.direction)\t\(peer.state)"
            if let relay = peer.relay { line += "\t\(relay)" }
            if let retry = peer.nextRetry { line += "\tnext retry in \(String(format: "%.1f", retry)) s" }
            if let error = peer.lastError { line += "\tlast error: \(TerminalText.escaped(error))" }
            return line + "\n"
        }.joined()
    }
}
