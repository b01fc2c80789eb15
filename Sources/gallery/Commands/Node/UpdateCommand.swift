import Foundation
import GalleryWire

/// `update ITEM... --title T | --aspect R [--stdin]`: changes the title or aspect ratio of items,
/// all or none.
struct UpdateCommand: NodeSubcommand {
    static let name = ControlCommandName.update
    static let usage = """
        usage: gallery -C DIR update ITEM... --title T | --aspect R [--stdin]

        Sets the title or the aspect ratio (width / height) of every item named (ITEM: COUNTER@REPLICA
        or GALLERY:INDEX). --stdin adds one ITEM per line of standard input. One request, one batch:
        all are updated, or none (the refusal names the first item that does not resolve). At most
        10000 items.
        """
    let request: UpdateRequest

    init(parsing arguments: inout ArgumentList) throws(CommandFailure) {
        let title = try arguments.option("--title")
        let aspect = try arguments.doubleOption("--aspect")
        guard title != nil || aspect != nil else { throw arguments.failure("update needs --title T or --aspect R") }
        request = UpdateRequest(items: try arguments.itemList(), title: title, aspect: aspect)
    }

    var command: ControlCommand { .update(request) }
}
