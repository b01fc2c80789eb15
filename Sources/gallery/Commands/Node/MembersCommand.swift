import Foundation
import GalleryIO
import GalleryWire

/// `members [--json]`: the space's members, one a line: node ID, name, when added and by whom,
/// and when revoked and by whom.
struct MembersCommand: NodeSubcommand {
    static let name = ControlCommandName.members
    static let usage = "usage: gallery -C DIR members [--json]"
    let json: Bool

    init(parsing arguments: inout ArgumentList) throws(CommandFailure) {
        json = arguments.flag("--json")
    }

    var command: ControlCommand { .members }

    func render(_ reply: ControlReply) -> String {
        guard case .members(let members) = reply else { return "" }
        if json { return JSONOutput.line(members) }
        return members.map { member in
            var line = "\(member.nodeID)\t\(TerminalText.escaped(member.name))\tadded \(Self.time(member.added)) by \(TerminalText.escaped(member.addedBy))"
            if let revoked = member.revoked {
                line += "\tREVOKED \(Self.time(revoked)) by \(TerminalText.escaped(member.revokedBy ?? "?"))"
            }
            if member.isSelf { line += "\t(this node)" }
            return line + "\n"
        }.joined()
    }

    private static func time(_ milliseconds: UInt64) -> String {
        let formatter = ISO8601DateFormatter()
        return formatter.string(from: Date(timeIntervalSince1970: Double(milliseconds) / 1_000))
    }
}
