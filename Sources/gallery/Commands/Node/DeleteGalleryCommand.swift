import Foundation
import GalleryWire

/// `delete-gallery NAME`: the gallery goes, its items go to the Trash.
struct DeleteGalleryCommand: NodeSubcommand {
    static let name = ControlCommandName.deleteGallery
    static let usage = """
        usage: gallery -C DIR delete-gallery NAME

        Deletes a gallery: its items go to the Trash (restoring one brings the gallery back).
        gallery undo takes it back.
        """
    let gallery: String

    init(parsing arguments: inout ArgumentList) throws(CommandFailure) {
        gallery = try arguments.positional("NAME")
    }

    var command: ControlCommand { .deleteGallery(gallery) }

    func render(_ reply: ControlReply) -> String { MessageOutput.line(reply) }
}
