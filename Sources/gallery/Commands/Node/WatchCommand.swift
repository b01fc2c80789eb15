import Foundation
import GalleryControl
import GalleryIO
import GalleryWire

/// `watch [GALLERY] [--json]`: shows every change live until the node stops or the user
/// interrupts: one JSON event per line with `--json`, else the gallery redrawn (the screen
/// cleared first on a terminal). The node sends the listing once, then only what changed: the
/// view is kept here (`WatchView`).
struct WatchCommand: NodeSubcommand {
    static let name = ControlCommandName.watch
    static let usage = "usage: gallery -C DIR watch [GALLERY] [--json]"
    let gallery: String?
    let json: Bool

    init(parsing arguments: inout ArgumentList) {
        json = arguments.flag("--json")
        gallery = arguments.optionalPositional()
    }

    var command: ControlCommand { .watch(gallery: gallery) }

    func run(on node: NodeConnection) throws(CommandFailure) {
        let terminal = isatty(STDOUT_FILENO) == 1
        var failure: String?
        var view = WatchView(gallery: gallery, ordered: !json)
        try node.stream(command) { response in
            guard let reply = response.reply else {
                failure = TerminalText.escaped(response.error ?? "the node refused to watch")
                return false
            }
            var text = ""
            if let events = reply.events {
                let printed = view.apply(events)
                if json {
                    for event in printed { text += JSONOutput.line(event) }
                }
            } else {
                view.start(reply.galleries ?? [])
                // The listing confirms the subscription (or starts it over): say so, so that
                // scripts can wait for it.
                if json { text += JSONOutput.line(WatchEvent(event: .watching, gallery: gallery)) }
            }
            if !json {
                if terminal { text += "\u{1B}[2J\u{1B}[H" }
                text += ListCommand.render(view.galleries, gallery: gallery, json: false)
                if !terminal { text += "\n" }
            }
            if !text.isEmpty { try? FileHandle.standardOutput.write(contentsOf: Data(text.utf8)) }
            return true
        }
        if let failure { throw .failed(failure) }
    }
}
