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
            switch error {
            case .notRunning(let reason): throw CommandFailure(code: .unavailable, message: reason, usage: nil)
            case .authRefused(let reason): throw CommandFailure(code: .authRefused, message: reason, usage: nil)
            case .failed(let reason): throw .failed(reason)
            }
        }
        guard response.ok else { throw .failed(response.error ?? "the node refused the command") }
        print(render(response, command: request.command, gallery: request.gallery, json: json), terminator: "")
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
