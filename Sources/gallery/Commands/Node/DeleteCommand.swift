import Foundation
import GalleryWire

/// `delete ITEM... [--stdin]` (or `trash`): deletes items, all or none.
struct DeleteCommand: NodeSubcommand {
    static let name = ControlCommandName.delete
    static let aliases = ["trash"]
    static let usage = """
        usage: gallery -C DIR delete ITEM... [--stdin]

        Deletes the items (ITEM: COUNTER@REPLICA or GALLERY:INDEX, every place read from the listing
        before the delete). --stdin adds one ITEM per line of standard input. One request, one batch:
        all are deleted, or none (the refusal names the first item that does not resolve). At most
        10000 items.
        """
    let items: [ItemReference]

    init(parsing arguments: inout ArgumentList) throws(CommandFailure) {
        items = try arguments.itemList()
    }

    var command: ControlCommand { .delete(items) }
}
