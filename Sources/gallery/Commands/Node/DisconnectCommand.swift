import Foundation
import GalleryWire

/// `disconnect PEER`: drops the connections to the peer of that name.
struct DisconnectCommand: NodeSubcommand {
    static let name = ControlCommandName.disconnect
    static let usage = "usage: gallery -C DIR disconnect PEER"
    let peer: String

    init(parsing arguments: inout ArgumentList) throws(CommandFailure) {
        peer = try arguments.positional("PEER")
    }

    var command: ControlCommand { .disconnect(peer: peer) }
}
