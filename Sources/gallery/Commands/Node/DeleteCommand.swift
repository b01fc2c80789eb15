import Foundation
import GalleryWire

/// `delete ITEM... [--stdin]` (or `trash`): moves items to the Trash, all or none.
struct DeleteCommand: NodeSubcommand {
    static let name = ControlCommandName.delete
    static let aliases = ["trash"]
    static let usage = """
        usage: gallery -C DIR delete ITEM... [--stdin]

        Moves the items to the Trash (ITEM: COUNTER@REPLICA or GALLERY:INDEX, every place read from
        the listing before the delete). --stdin adds one ITEM per line of standard input. One request,
        one batch: all go, or none (the refusal names the first item that does not resolve). At most
        10000 items. gallery undo (or restore ITEM) brings them back; empty-trash deletes them for
        good, as the node does 30 days after.
        """
    let items: [ItemReference]

    init(parsing arguments: inout ArgumentList) throws(CommandFailure) {
        items = try arguments.itemList()
    }

    var command: ControlCommand { .delete(items) }

    func render(_ reply: ControlReply) -> String { MessageOutput.line(reply) }
}
