import Foundation
import GalleryWire

/// `undo` and `redo`: this node's last command-line action taken back, or the last undo.
struct UndoCommand: NodeSubcommand {
    static let name = ControlCommandName.undo
    static let usage = """
        usage: gallery -C DIR undo

        Takes back this node's last delete, restore, move, update, rename-gallery or delete-gallery
        made from the command line, with new ops (history is never rewritten). Items someone else
        changed since are left as they are, and the answer says how many. The node keeps the last
        256 actions while it runs. gallery redo takes the undo back.
        """

    init(parsing arguments: inout ArgumentList) {}

    var command: ControlCommand { .undo }

    func render(_ reply: ControlReply) -> String { MessageOutput.line(reply) }
}

/// `redo`: takes back the last `undo`.
struct RedoCommand: NodeSubcommand {
    static let name = ControlCommandName.redo
    static let usage = "usage: gallery -C DIR redo"

    init(parsing arguments: inout ArgumentList) {}

    var command: ControlCommand { .redo }

    func render(_ reply: ControlReply) -> String { MessageOutput.line(reply) }
}
