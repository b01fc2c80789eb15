import Foundation
import GalleryWire

/// `empty-trash [ITEM...]`: deletes items of the Trash for good (all of it without ITEM).
struct EmptyTrashCommand: NodeSubcommand {
    static let name = ControlCommandName.emptyTrash
    static let usage = """
        usage: gallery -C DIR empty-trash [ITEM...]

        Deletes for good the items of the Trash named (COUNTER@REPLICA), or all of it without ITEM.
        Nothing undoes it. Items are also deleted for good 30 days after they were moved to the Trash.
        """
    let items: [ItemReference]

    init(parsing arguments: inout ArgumentList) throws(CommandFailure) {
        var items: [ItemReference] = []
        while let text = arguments.optionalPositional() {
            guard let item = ItemReference(text) else { throw arguments.failure(ItemReference.problem(with: text)) }
            items.append(item)
        }
        self.items = items
    }

    var command: ControlCommand { .emptyTrash(items) }

    func render(_ reply: ControlReply) -> String { MessageOutput.line(reply) }
}
