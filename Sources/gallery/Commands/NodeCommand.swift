import Foundation
import GalleryWire
import GalleryIO
import GalleryControl
import GalleryNode

/// `gallery -C DIR COMMAND ...`: a command carried out by the node serving DIR.
struct NodeCommand {
    let directory: URL
    let arguments: [String]

    func run() throws(CommandFailure) {
        guard let command = arguments.first else { throw .usage("missing command after -C DIR", Usage.overview) }
        var parser = ArgumentList(Array(arguments.dropFirst()), usage: Usage.of(command) ?? Usage.overview)
        var request = ControlRequest(id: 1, command: command)
        var json = false
        switch command {
        case "galleries", "peers":
            try parser.expectEnd()
        case "status":
            json = parser.flag("--json")
            try parser.expectEnd()
        case "connect":
            let text = try parser.positional("HOST:PORT")
            guard Endpoint(text) != nil else { throw .usage("\"\(text)\" is not HOST:PORT", Usage.of("connect") ?? Usage.overview) }
            request.gallery = text
            try parser.expectEnd()
        case "disconnect":
            request.gallery = try parser.positional("PEER")
            try parser.expectEnd()
        case "watch":
            json = parser.flag("--json")
            request.gallery = parser.optionalPositional()
            try parser.expectEnd()
            try watch(request, json: json)
            return
        case "new-gallery":
            request.gallery = try parser.positional("NAME")
            try parser.expectEnd()
        case "list":
            json = parser.flag("--json")
            request.gallery = parser.optionalPositional()
            try parser.expectEnd()
        case "add":
            request.gallery = try parser.option("--to")
            request.index = try parser.intOption("--at")
            request.title = try parser.option("--title")
            request.aspect = try parser.doubleOption("--aspect")
            let sources = parser.remainingPositionals()
            guard !sources.isEmpty else { throw .usage("add needs FILE or URL", Usage.add) }
            request.urls = sources.filter { $0.contains("://") }
            request.files = sources.filter { !$0.contains("://") }.map { URL(fileURLWithPath: $0).path }
            try Self.checkBounds(request)
            // A FIFO, device or directory is refused here at once (the node checks again).
            for file in request.files ?? [] {
                do {
                    try RegularFile.check(file)
                } catch {
                    throw .failed(error.localizedDescription)
                }
            }
        case "move":
            request.gallery = try parser.option("--to")
            guard let index = try parser.intOption("--at") else { throw .usage("move needs --at INDEX", Usage.move) }
            request.index = index
            request.items = [try parser.positional("ITEM")]
            try parser.expectEnd()
        case "drag":
            let copy = parser.flag("--copy")
            let move = parser.flag("--move")
            guard !(copy && move) else { throw .usage("--copy and --move exclude each other", Usage.drag) }
            request.move = move
            let wait = parser.flag("--wait")
            request.wait = wait
            guard let gallery = try parser.option("--to") else { throw .usage("drag needs --to GALLERY", Usage.drag) }
            request.gallery = gallery
            request.index = try parser.intOption("--at")
            if let index = request.index, index < 0 { throw .usage("--at must be 0 or more", Usage.drag) }
            request.timeout = try parser.doubleOption("--timeout")
            if let timeout = request.timeout, !(timeout > 0 && timeout.isFinite) {
                throw .usage("--timeout must be a positive number of seconds", Usage.drag)
            }
            request.items = parser.remainingPositionals()
            guard !(request.items ?? []).isEmpty else { throw .usage("drag needs ITEM", Usage.drag) }
            try Self.checkBounds(request)
            if wait {
                try dragAndWait(request)
                return
            }
        case "cancel":
            request.items = parser.remainingPositionals()
            guard !(request.items ?? []).isEmpty else { throw .usage("cancel needs TRANSFER", Usage.of("cancel") ?? Usage.overview) }
        case "export":
            request.items = [try parser.positional("ITEM")]
            let destination = URL(fileURLWithPath: try parser.positional("FILE"))
            try parser.expectEnd()
            try export(request, to: destination)
            return
        case "delete", "trash":
            request.command = "delete"
            request.items = parser.remainingPositionals()
            guard !(request.items ?? []).isEmpty else { throw .usage("\(command) needs ITEM", Usage.delete) }
        case "update":
            request.title = try parser.option("--title")
            request.aspect = try parser.doubleOption("--aspect")
            guard request.title != nil || request.aspect != nil else {
                throw .usage("update needs --title T or --aspect R", Usage.update)
            }
            request.items = [try parser.positional("ITEM")]
            try parser.expectEnd()
        default:
            throw .usage("unknown command \"\(command)\"", Usage.overview)
        }
        try Self.checkBounds(request)
        let response: ControlResponse
        do {
            response = try ControlClient.send(request, to: directory)
        } catch {
            throw Self.failure(error)
        }
        guard response.ok else { throw .failed(TerminalText.escaped(response.error ?? "the node refused the command")) }
        print(render(response, command: request.command, gallery: request.gallery, json: json), terminator: "")
    }

    /// A value no op may hold (`FieldLimits`) is a usage error, found before the node is contacted.
    private static func checkBounds(_ request: ControlRequest) throws(CommandFailure) {
        if let problem = RequestBounds.problem(with: request) {
            throw .usage(problem, Usage.of(request.command) ?? Usage.overview)
        }
    }

    private static func failure(_ error: ControlClient.Failure) -> CommandFailure {
        switch error {
        case .notRunning(let reason): CommandFailure(code: .unavailable, message: TerminalText.escaped(reason), usage: nil)
        case .authRefused(let reason): CommandFailure(code: .authRefused, message: TerminalText.escaped(reason), usage: nil)
        case .failed(let reason): .failed(TerminalText.escaped(reason))
        }
    }

    /// `export ITEM FILE`: the node names the item's bytes (hash and size); this process reads
    /// them from DIR's blob store, checks them, and writes FILE with the user's own rights.
    private func export(_ request: ControlRequest, to destination: URL) throws(CommandFailure) {
        let response: ControlResponse
        do {
            response = try ControlClient.send(request, to: directory)
        } catch {
            throw Self.failure(error)
        }
        guard response.ok else { throw .failed(TerminalText.escaped(response.error ?? "the node refused the command")) }
        guard let item = response.item, let hash = item.hash else { throw .failed("the node named no bytes for \(request.items?.first ?? "")") }
        do {
            try BlobExport.export(hash: hash, size: item.bytes, from: directory, to: destination)
        } catch {
            throw .failed(TerminalText.escaped(error.localizedDescription))
        }
    }

    /// Shows every change live until the node stops or the user interrupts: one JSON event per line
    /// with `--json`, else the gallery redrawn (the screen cleared first on a terminal).
    private func watch(_ request: ControlRequest, json: Bool) throws(CommandFailure) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let terminal = isatty(STDOUT_FILENO) == 1
        var failure: String?
        do {
            try ControlClient.stream(request, to: directory, timeout: nil) { response in
                guard response.ok else {
                    failure = TerminalText.escaped(response.error ?? "the node refused to watch")
                    return false
                }
                var text = ""
                if json {
                    // The first answer confirms the subscription: say so, so that scripts can wait for it.
                    let events = response.events ?? [WatchEvent(event: "watching", gallery: request.gallery)]
                    for event in events {
                        if let data = try? encoder.encode(event) { text += String(decoding: data, as: UTF8.self) + "\n" }
                    }
                } else {
                    if terminal { text += "\u{1B}[2J\u{1B}[H" }
                    text += render(response, command: "list", gallery: request.gallery, json: false)
                    if !terminal { text += "\n" }
                }
                try? FileHandle.standardOutput.write(contentsOf: Data(text.utf8))
                return true
            }
        } catch {
            throw Self.failure(error)
        }
        if let failure { throw .failed(failure) }
    }

    /// `drag --wait`: prints the drop's lines, then one line per transfer as they end; fails
    /// (exit 1) unless every transfer was committed.
    private func dragAndWait(_ request: ControlRequest) throws(CommandFailure) {
        var answers = 0
        var failure: String?
        do {
            try ControlClient.stream(request, to: directory, timeout: nil) { response in
                guard response.ok else {
                    failure = TerminalText.escaped(response.error ?? "the node refused the drop")
                    return false
                }
                answers += 1
                let drops = response.drops ?? []
                if answers == 1 {
                    let text = render(response, command: "drag", gallery: nil, json: false)
                    try? FileHandle.standardOutput.write(contentsOf: Data(text.utf8))
                    return true
                }
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
        } catch {
            throw Self.failure(error)
        }
        if let failure { throw .failed(failure) }
        if answers < 2 { throw .failed("the node closed the connection before the transfers ended") }
    }

    /// What the command prints on success.
    private func render(_ response: ControlResponse, command: String, gallery: String?, json: Bool) -> String {
        switch command {
        case "galleries":
            return (response.galleries ?? []).map { TerminalText.escaped($0.gallery) + "\n" }.joined()
        case "add":
            return (response.ids ?? []).map { $0 + "\n" }.joined()
        case "drag":
            return (response.drops ?? []).map {
                "\($0.source) -> \(TerminalText.escaped($0.gallery)):\($0.index) \($0.action) \($0.item) transfer \($0.transfer ?? "-")\n"
            }.joined()
        case "peers":
            return (response.peers ?? []).map {
                "\(TerminalText.escaped($0.name ?? "?"))\t\($0.address)\t\($0.direction)\t\($0.state)\n"
            }.joined()
        case "status":
            guard let status = response.status else { return "" }
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
                return String(decoding: (try? encoder.encode(status)) ?? Data(), as: UTF8.self) + "\n"
            }
            let version = status.version.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)" }.joined(separator: " ")
            return "\(TerminalText.escaped(status.name)) (replica \(status.replica)) listening on \(status.address ?? "-")\n"
                + "ops: \(status.ops), waiting for dependencies: \(status.buffered)\n"
                + "version: \(version)\n"
                + (status.health.map(Self.healthLines) ?? "")
                + status.peers.map { "peer \(TerminalText.escaped($0.name ?? "?")) \($0.address) \($0.direction) \($0.state)\n" }.joined()
                + status.transfers.map {
                    "transfer \($0.transfer) \($0.move ? "move" : "copy") of \($0.source): \($0.done)/\($0.total) bytes, "
                        + "\(TerminalText.escaped($0.state)), \(Int($0.secondsLeft.rounded())) s left\n"
                }.joined()
        case "list":
            let galleries = response.galleries ?? []
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
                let data: Data? = if gallery != nil, let first = galleries.first {
                    try? encoder.encode(first)
                } else {
                    try? encoder.encode(["galleries": galleries])
                }
                return String(decoding: data ?? Data(), as: UTF8.self) + "\n"
            }
            return galleries.map { listing in
                "\(TerminalText.escaped(listing.gallery)) (\(listing.items.count) items)\n" + listing.items.enumerated().map { index, item in
                    let progress = item.progress.map { " \($0.done)/\($0.total) bytes" } ?? ""
                    return "  \(index)\t\(item.id)\t\(item.state)\(progress)\t\(TerminalText.escaped(item.title ?? ""))\n"
                }.joined()
            }.joined()
        default:
            return ""
        }
    }
}
