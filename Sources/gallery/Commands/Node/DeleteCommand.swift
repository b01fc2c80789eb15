import Foundation
import GalleryWire

/// `delete ITEM...` (or `trash`): deletes items, all or none.
struct DeleteCommand: NodeSubcommand {
    static let name = ControlCommandName.delete
    static let aliases = ["trash"]
    static let usage = "usage: gallery -C DIR delete ITEM..."
    let items: [ItemReference]

    init(parsing arguments: inout ArgumentList) throws(CommandFailure) {
        items = try arguments.items()
    }

    var command: ControlCommand { .delete(items) }
}
