import Foundation
import GalleryIO
import GalleryWire

/// `galleries`: the galleries' names, one a line.
struct GalleriesCommand: NodeSubcommand {
    static let name = ControlCommandName.galleries
    static let usage = "usage: gallery -C DIR galleries"

    init(parsing arguments: inout ArgumentList) {}

    var command: ControlCommand { .galleries }

    func render(_ reply: ControlReply) -> String {
        (reply.galleries ?? []).map { TerminalText.escaped($0.gallery) + "\n" }.joined()
    }
}
