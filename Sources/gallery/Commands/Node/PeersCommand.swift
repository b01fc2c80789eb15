import Foundation
import GalleryIO
import GalleryNode
import GalleryWire

/// `peers`: the connected peers, one a line.
struct PeersCommand: NodeSubcommand {
    static let name = ControlCommandName.peers
    static let usage = "usage: gallery -C DIR peers"

    init(parsing arguments: inout ArgumentList) {}

    var command: ControlCommand { .peers }

    func render(_ reply: ControlReply) -> String {
        guard case .peers(let peers) = reply else { return "" }
        return peers.map { "\(TerminalText.escaped($0.name ?? "?"))\t\($0.address)\t\($0.direction)\t\($0.state)\n" }.joined()
    }
}
