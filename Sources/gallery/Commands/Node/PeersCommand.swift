import Foundation
import GalleryIO
import GalleryNode
import GalleryWire

/// `peers [--json]`: the connected peers, one a line: name, node ID, address, direction, state.
struct PeersCommand: NodeSubcommand {
    static let name = ControlCommandName.peers
    static let usage = "usage: gallery -C DIR peers [--json]"
    let json: Bool

    init(parsing arguments: inout ArgumentList) {
        json = arguments.flag("--json")
    }

    var command: ControlCommand { .peers }

    func render(_ reply: ControlReply) -> String {
        guard case .peers(let peers) = reply else { return "" }
        if json { return JSONOutput.line(peers) }
        return peers.map {
            "\(TerminalText.escaped($0.name ?? "?"))\t\($0.nodeID ?? "?")\t\($0.address)\t\($0.direction)\t\($0.state)\n"
        }.joined()
    }
}
