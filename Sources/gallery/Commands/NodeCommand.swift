import Foundation
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
            if request.gallery == nil { request.gallery = try nodeName() }
        case "move":
            request.gallery = try parser.option("--to")
            guard let index = try parser.intOption("--at") else { throw .usage("move needs --at INDEX", Usage.move) }
            request.index = index
            request.items = [try parser.positional("ITEM")]
            try parser.expectEnd()
        case "export":
            request.items = [try parser.positional("ITEM")]
            request.files = [URL(fileURLWithPath: try parser.positional("FILE")).path]
            try parser.expectEnd()
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
        let response: ControlResponse
        do {
            response = try ControlClient.send(request, to: directory)
        } catch {
            throw Self.failure(error)
        }
        guard response.ok else { throw .failed(response.error ?? "the node refused the command") }
        print(render(response, command: request.command, gallery: request.gallery, json: json), terminator: "")
    }

    private static func failure(_ error: ControlClient.Failure) -> CommandFailure {
        switch error {
        case .notRunning(let reason): CommandFailure(code: .unavailable, message: reason, usage: nil)
        case .authRefused(let reason): CommandFailure(code: .authRefused, message: reason, usage: nil)
        case .failed(let reason): .failed(reason)
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
                    failure = response.error ?? "the node refused to watch"
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

    private func nodeName() throws(CommandFailure) -> String {
        do {
            return try ControlClient.nodeInfo(of: directory).name
        } catch {
            throw CommandFailure(code: .unavailable, message: error.localizedDescription, usage: nil)
        }
    }

    /// What the command prints on success.
    private func render(_ response: ControlResponse, command: String, gallery: String?, json: Bool) -> String {
        switch command {
        case "galleries":
            return (response.galleries ?? []).map { $0.gallery + "\n" }.joined()
        case "add":
            return (response.ids ?? []).map { $0 + "\n" }.joined()
        case "peers":
            return (response.peers ?? []).map {
                "\($0.name ?? "?")\t\($0.address)\t\($0.direction)\t\($0.state)\n"
            }.joined()
        case "status":
            guard let status = response.status else { return "" }
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
                return String(decoding: (try? encoder.encode(status)) ?? Data(), as: UTF8.self) + "\n"
            }
            let version = status.version.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)" }.joined(separator: " ")
            return "\(status.name) (replica \(status.replica)) listening on \(status.address ?? "-")\n"
                + "ops: \(status.ops), waiting for dependencies: \(status.buffered)\n"
                + "version: \(version)\n"
                + status.peers.map { "peer \($0.name ?? "?") \($0.address) \($0.direction) \($0.state)\n" }.joined()
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
                "\(listing.gallery) (\(listing.items.count) items)\n" + listing.items.enumerated().map { index, item in
                    "  \(index)\t\(item.id)\t\(item.state)\t\(item.title ?? "")\n"
                }.joined()
            }.joined()
        default:
            return ""
        }
    }
}
