import Foundation
import GalleryIO
import GalleryWire

/// `watch [GALLERY] [--json]`: shows every change live until the node stops or the user
/// interrupts: one JSON event per line with `--json`, else the gallery redrawn (the screen
/// cleared first on a terminal).
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
        try node.stream(command) { response in
            guard let reply = response.reply else {
                failure = TerminalText.escaped(response.error ?? "the node refused to watch")
                return false
            }
            var text = ""
            if json {
                // The first answer confirms the subscription: say so, so that scripts can wait for it.
                for event in reply.events ?? [WatchEvent(event: .watching, gallery: gallery)] { text += JSONOutput.line(event) }
            } else {
                if terminal { text += "\u{1B}[2J\u{1B}[H" }
                text += ListCommand.render(reply.galleries ?? [], gallery: gallery, json: false)
                if !terminal { text += "\n" }
            }
            try? FileHandle.standardOutput.write(contentsOf: Data(text.utf8))
            return true
        }
        if let failure { throw .failed(failure) }
    }
}
