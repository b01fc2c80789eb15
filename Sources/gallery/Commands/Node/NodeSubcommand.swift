import Foundation
import GalleryWire

/// One command of `gallery -C DIR`: parsed from its arguments into a typed `ControlCommand`,
/// carried out by the node, and its answer printed.
protocol NodeSubcommand {
    /// The word that names it after `-C DIR`.
    static var name: ControlCommandName { get }
    /// Other words that name it (`trash` for `delete`).
    static var aliases: [String] { get }
    /// Its usage line(s).
    static var usage: String { get }

    /// Takes the command's arguments apart; a bad one is a usage error.
    init(parsing arguments: inout ArgumentList) throws(CommandFailure)

    /// The command sent to the node.
    var command: ControlCommand { get }

    /// Sends the command and prints the answer; the default prints `render` of the reply.
    func run(on node: NodeConnection) throws(CommandFailure)

    /// What the command prints on success; nothing by default.
    func render(_ reply: ControlReply) -> String
}

extension NodeSubcommand {
    static var aliases: [String] { [] }

    func run(on node: NodeConnection) throws(CommandFailure) {
        print(render(try node.send(command)), terminator: "")
    }

    func render(_ reply: ControlReply) -> String { "" }
}

/// The JSON that `--json` outputs print: keys sorted, slashes unescaped.
enum JSONOutput {
    /// One value as one line of JSON.
    static func line(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: (try? encoder.encode(value)) ?? Data(), as: UTF8.self) + "\n"
    }
}
