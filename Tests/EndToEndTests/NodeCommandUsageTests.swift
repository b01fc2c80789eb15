import Foundation
import GalleryTestSupport
import Testing

/// Bad arguments of `gallery -C DIR COMMAND` are found by the one argument parser before any node is
/// contacted: one line naming the problem, the command's usage, exit 64 (no node runs on DIR here).
@Suite("gallery -C DIR usage errors")
struct NodeCommandUsageTests {
    @Test("a bad argument: one line, the usage, exit 64, nothing on stdout", arguments: [
        (["move", "nowhere", "--at", "0"], "\"nowhere\" is neither an item ID (COUNTER@REPLICA) nor GALLERY:INDEX", "move"),
        (["delete", "alice:0", "x"], "\"x\" is neither an item ID", "delete"),
        (["trash"], "trash needs ITEM", "delete"),
        (["add", "a.png", "--bogus"], "unknown option --bogus", "add"),
        (["add"], "add needs FILE or URL", "add"),
        (["list", "a", "b"], "unexpected argument \"b\"", "list"),
        (["cancel", "7"], "\"7\" is not a transfer ID", "cancel"),
        (["connect", "nohost"], "\"nohost\" is not HOST:PORT", "connect"),
        (["export", "alice:0"], "missing FILE", "export"),
        (["update", "alice:0"], "update needs --title T or --aspect R", "update"),
        (["drag", "alice:0", "--to"], "--to needs a value", "drag"),
        (["status", "--jsn"], "unknown option --jsn", "status"),
        (["frobnicate"], "unknown command \"frobnicate\"", nil),
    ] as [([String], String, String?)])
    func usage(arguments: [String], message: String, command: String?) throws {
        let result = try GalleryProcess.run(["-C", "/nonexistent/gallery-dir"] + arguments)
        #expect(result.status == 64, "\(arguments): \(result.status) \(result.stderr)")
        let lines = result.stderr.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.first.map { $0.hasPrefix("gallery: " + message) } == true, "\(arguments): \(result.stderr)")
        let usage = command.map { "usage: gallery -C DIR \($0)" } ?? "usage: gallery <command>"
        #expect(lines.dropFirst().first.map { $0.hasPrefix(usage) } == true, "\(arguments): \(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    @Test("help names every node command's usage, aliases included", arguments: [
        "galleries", "new-gallery", "list", "add", "export", "move", "delete", "trash", "update", "peers", "connect",
        "disconnect", "forget", "drag", "cancel", "status", "watch", "serve", "simulate",
    ])
    func help(command: String) throws {
        let result = try GalleryProcess.run(["help", command])
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("usage: gallery "), "\(command): \(result.stdout)")
    }
}
