import Foundation
import GalleryIO
import GalleryWire

/// `list [GALLERY] [--json]`: the items of a gallery, or of all; `list --trash`: the Trash.
struct ListCommand: NodeSubcommand {
    static let name = ControlCommandName.list
    static let usage = """
        usage: gallery -C DIR list [GALLERY] [--json]
               gallery -C DIR list --trash [--json]

        --trash lists the Trash, the most recently trashed first, each item with the gallery it left
        ("from") and when ("trashedAt", Unix milliseconds).
        """
    let gallery: String?
    let json: Bool
    let trash: Bool

    init(parsing arguments: inout ArgumentList) throws(CommandFailure) {
        json = arguments.flag("--json")
        trash = arguments.flag("--trash")
        gallery = arguments.optionalPositional()
        if trash, gallery != nil { throw arguments.failure("list --trash takes no GALLERY") }
    }

    var command: ControlCommand { trash ? .listTrash : .list(gallery: gallery) }

    func render(_ reply: ControlReply) -> String {
        guard trash else { return Self.render(reply.galleries ?? [], gallery: gallery, json: json) }
        let items = reply.galleries?.first?.items ?? []
        if json { return JSONOutput.line(["trash": items]) }
        return "Trash (\(items.count) items)\n" + items.enumerated().map { index, item in
            "  \(index)\t\(item.id)\t\(TerminalText.escaped(item.title ?? ""))\tfrom \(TerminalText.escaped(item.from ?? ""))\n"
        }.joined()
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
