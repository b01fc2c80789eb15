import Foundation
import GalleryWire

/// `rename-gallery NAME NEW-NAME`.
struct RenameGalleryCommand: NodeSubcommand {
    static let name = ControlCommandName.renameGallery
    static let usage = """
        usage: gallery -C DIR rename-gallery NAME NEW-NAME

        Renames a gallery, everywhere. Two renames at once: the later op wins on every node.
        """
    let gallery: String
    let newName: String

    init(parsing arguments: inout ArgumentList) throws(CommandFailure) {
        gallery = try arguments.positional("NAME")
        newName = try arguments.positional("NEW-NAME")
    }

    var command: ControlCommand { .renameGallery(gallery, to: newName) }

    func render(_ reply: ControlReply) -> String { MessageOutput.line(reply) }
}
