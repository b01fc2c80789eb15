import Foundation
import GalleryIO
import GalleryWire

/// `drag ITEM... --to GALLERY [--at INDEX] [--copy | --move] [--wait] [--timeout SECONDS]`: drops
/// items into a gallery; the node performs the drop (GalleryNode's `Drop`).
struct DragCommand: NodeSubcommand {
    static let name = ControlCommandName.drag
    static let usage = Usage.drag
    let request: DragRequest

    init(parsing arguments: inout ArgumentList) throws(CommandFailure) {
        let copy = arguments.flag("--copy")
        let move = arguments.flag("--move")
        guard !(copy && move) else { throw arguments.failure("--copy and --move exclude each other") }
        let wait = arguments.flag("--wait")
        let gallery = try arguments.requiredOption("--to", "GALLERY")
        let index = try arguments.intOption("--at")
        let timeout = try arguments.doubleOption("--timeout")
        let items = try arguments.positionals("ITEM").map(DragSource.init)
        request = DragRequest(items: items, gallery: gallery, index: index, move: move, wait: wait, timeout: timeout)
    }

    var command: ControlCommand { .drag(request) }

    func render(_ reply: ControlReply) -> String {
        (reply.drops ?? []).map {
            "\($0.source) -> \(TerminalText.escaped($0.gallery)):\($0.index) \($0.action.rawValue) \($0.item) transfer \($0.transfer ?? "-")\n"
        }.joined()
    }

    func run(on node: NodeConnection) throws(CommandFailure) {
        guard request.wait else {
            print(render(try node.send(command)), terminator: "")
            return
        }
        try dragAndWait(on: node)
    }

    /// `--wait`: prints the drop's lines, then one line per transfer as they end; fails (exit 1)
    /// unless every transfer was committed.
    private func dragAndWait(on node: NodeConnection) throws(CommandFailure) {
        var answers = 0
        var failure: String?
        try node.stream(command) { response in
            guard let reply = response.reply else {
                failure = TerminalText.escaped(response.error ?? "the node refused the drop")
                return false
            }
            answers += 1
            if answers == 1 {
                try? FileHandle.standardOutput.write(contentsOf: Data(render(reply).utf8))
                return true
            }
            let drops = reply.drops ?? []
            var failed = 0
            for drop in drops {
                guard let transfer = drop.transfer else { continue }
                let outcome = drop.outcome ?? "unknown"
                if outcome != "committed" { failed += 1 }
                try? FileHandle.standardOutput.write(contentsOf: Data("transfer \(transfer) \(TerminalText.escaped(outcome))\n".utf8))
            }
            if failed > 0 { failure = "\(failed) of \(drops.filter { $0.transfer != nil }.count) transfers failed" }
            return false
        }
        if let failure { throw .failed(failure) }
        if answers < 2 { throw .failed("the node closed the connection before the transfers ended") }
    }
}
