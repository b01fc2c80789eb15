import Foundation
import GalleryWire

/// `update ITEM --title T | --aspect R`: changes an item's title or aspect ratio.
struct UpdateCommand: NodeSubcommand {
    static let name = ControlCommandName.update
    static let usage = "usage: gallery -C DIR update ITEM --title T | --aspect R"
    let request: UpdateRequest

    init(parsing arguments: inout ArgumentList) throws(CommandFailure) {
        let title = try arguments.option("--title")
        let aspect = try arguments.doubleOption("--aspect")
        guard title != nil || aspect != nil else { throw arguments.failure("update needs --title T or --aspect R") }
        request = UpdateRequest(item: try arguments.item(), title: title, aspect: aspect)
    }

    var command: ControlCommand { .update(request) }
}
