import Foundation
import GalleryWire

/// `forget PEER`: removes a peer (by name) or an address (`HOST:PORT`) from the address book;
/// the node stops dialing it.
struct ForgetCommand: NodeSubcommand {
    static let name = ControlCommandName.forget
    static let usage = "usage: gallery -C DIR forget PEER|HOST:PORT"
    let peer: String

    init(parsing arguments: inout ArgumentList) throws(CommandFailure) {
        peer = try arguments.positional("PEER")
    }

    var command: ControlCommand { .forget(peer: peer) }
}
