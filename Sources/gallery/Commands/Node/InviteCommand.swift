import Foundation
import GalleryWire

/// `invite [--expires SECONDS]`: prints one line, a single-use invitation code (default: valid
/// 10 minutes) that `gallery serve NEWDIR --join CODE` takes.
struct InviteCommand: NodeSubcommand {
    static let name = ControlCommandName.invite
    static let usage = "usage: gallery -C DIR invite [--expires SECONDS]   (1 to 604800; default 600)"
    let seconds: UInt64

    init(parsing arguments: inout ArgumentList) throws(CommandFailure) {
        if let text = try arguments.option("--expires") {
            guard let value = UInt64(text), ControlCommand.invitationSeconds.contains(value) else {
                throw arguments.failure("--expires: \(text) is not a number of seconds from 1 to 604800")
            }
            seconds = value
        } else {
            seconds = ControlCommand.defaultInvitationSeconds
        }
    }

    var command: ControlCommand { .invite(seconds: seconds) }

    func render(_ reply: ControlReply) -> String {
        guard case .message(let code) = reply else { return "" }
        return code + "\n"
    }
}
