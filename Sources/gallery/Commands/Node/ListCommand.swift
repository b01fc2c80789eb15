import Foundation
import GalleryIO
import GalleryWire

/// `list [GALLERY] [--json]`: the items of a gallery, or of all.
struct ListCommand: NodeSubcommand {
    static let name = ControlCommandName.list
    static let usage = "usage: gallery -C DIR list [GALLERY] [--json]"
    let gallery: String?
    let json: Bool

    init(parsing arguments: inout ArgumentList) {
        json = arguments.flag("--json")
        gallery = arguments.optionalPositional()
    }

    var command: ControlCommand { .list(gallery: gallery) }

    func render(_ reply: ControlReply) -> String {
        Self.render(reply.galleries ?? [], gallery: gallery, json: json)
    }

    /// A listing as `list` prints it: with `--json`, one gallery's object when one was asked
    /// for, else `{"galleries": [...]}`; else a line per gallery and one per item (`watch` too).
    static func render(_ galleries: [GalleryListing], gallery: String?, json: Bool) -> String {
        if json {
            if gallery != nil, let first = galleries.first { return JSONOutput.line(first) }
            return JSONOutput.line(["galleries": galleries])
        }
        return galleries.map { listing in
            "\(TerminalText.escaped(listing.gallery)) (\(listing.items.count) items)\n" + listing.items.enumerated().map { index, item in
                let progress = item.progress.map { " \($0.done)/\($0.total) bytes" } ?? ""
                return "  \(index)\t\(item.id)\t\(item.state)\(progress)\t\(TerminalText.escaped(item.title ?? ""))\n"
            }.joined()
        }.joined()
    }
}
