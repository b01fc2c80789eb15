import Foundation
import GalleryWire

/// `revoke NODE`: removes a member (by node ID or name) from the space: the others move to a new
/// space key without it, and refuse its connections and its later ops.
struct RevokeCommand: NodeSubcommand {
    static let name = ControlCommandName.revoke
    static let usage = "usage: gallery -C DIR revoke NODE-ID|NAME"
    let node: String

    init(parsing arguments: inout ArgumentList) throws(CommandFailure) {
        node = try arguments.positional("NODE")
    }

    var command: ControlCommand { .revoke(node: node) }

    func render(_ reply: ControlReply) -> String {
        guard case .message(let message) = reply else { return "" }
        return message + "\n"
    }
}
