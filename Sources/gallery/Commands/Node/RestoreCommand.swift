import Foundation
import GalleryIO
import GalleryWire

/// `restore ITEM... [--stdin]`: takes items out of the Trash, all or none.
struct RestoreCommand: NodeSubcommand {
    static let name = ControlCommandName.restore
    static let usage = """
        usage: gallery -C DIR restore ITEM... [--stdin]

        Takes items out of the Trash (ITEM: COUNTER@REPLICA, as list --trash shows them), each back to
        the gallery it left, at the place it left as nearly as that gallery now allows; a deleted
        gallery comes back with it. All or none. gallery undo takes it back.
        """
    let items: [ItemReference]

    init(parsing arguments: inout ArgumentList) throws(CommandFailure) {
        items = try arguments.itemList()
    }

    var command: ControlCommand { .restore(items) }

    func render(_ reply: ControlReply) -> String { MessageOutput.line(reply) }
}

/// The one line of an action's answer (`ControlReply.message`).
enum MessageOutput {
    static func line(_ reply: ControlReply) -> String {
        guard case .message(let text) = reply, !text.isEmpty else { return "" }
        return TerminalText.escaped(text) + "\n"
    }
}
