import Foundation
import GalleryWire

/// `move ITEM --at INDEX [--to GALLERY]`: moves an item.
struct MoveCommand: NodeSubcommand {
    static let name = ControlCommandName.move
    static let usage = "usage: gallery -C DIR move ITEM --at INDEX [--to GALLERY]"
    let item: ItemReference
    let gallery: String?
    let index: Int

    init(parsing arguments: inout ArgumentList) throws(CommandFailure) {
        gallery = try arguments.option("--to")
        guard let index = try arguments.intOption("--at") else { throw arguments.failure("move needs --at INDEX") }
        self.index = index
        item = try arguments.item()
    }

    var command: ControlCommand { .move(item: item, to: gallery, at: index) }
}
