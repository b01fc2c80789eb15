import Foundation
import GalleryWire

/// `move ITEM... --at INDEX [--to GALLERY] [--stdin]`: moves items as one run, all or none.
struct MoveCommand: NodeSubcommand {
    static let name = ControlCommandName.move
    static let usage = """
        usage: gallery -C DIR move ITEM... --at INDEX [--to GALLERY] [--stdin]

        Moves the items as one run in the order given, the first at INDEX of GALLERY counted without
        them (default: the gallery the items stand in, which they must share). ITEM is COUNTER@REPLICA
        or GALLERY:INDEX, every place read from the listing before the move. --stdin adds one ITEM per
        line of standard input. One request, one batch: all move, or none (the refusal names the
        first item that does not resolve). At most 10000 items.
        """
    let items: [ItemReference]
    let gallery: String?
    let index: Int

    init(parsing arguments: inout ArgumentList) throws(CommandFailure) {
        gallery = try arguments.option("--to")
        guard let index = try arguments.intOption("--at") else { throw arguments.failure("move needs --at INDEX") }
        self.index = index
        items = try arguments.itemList()
    }

    var command: ControlCommand { .move(items: items, to: gallery, at: index) }
}
