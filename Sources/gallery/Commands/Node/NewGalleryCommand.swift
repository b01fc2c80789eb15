import Foundation
import GalleryWire

/// `new-gallery NAME`: creates a gallery.
struct NewGalleryCommand: NodeSubcommand {
    static let name = ControlCommandName.newGallery
    static let usage = "usage: gallery -C DIR new-gallery NAME"
    let gallery: String

    init(parsing arguments: inout ArgumentList) throws(CommandFailure) {
        gallery = try arguments.positional("NAME")
    }

    var command: ControlCommand { .newGallery(gallery) }
}
