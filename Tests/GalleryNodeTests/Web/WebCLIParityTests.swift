import Foundation
import GalleryControl
import GalleryModel
import GalleryNode
import GalleryWire
@testable import GalleryWeb
import Testing

extension NodeSuites {
    /// The web and the command line are two adapters of one application layer: where the CLI has
    /// the action, a web body's value is held to the same rule (`ControlCommands.check`, the one
    /// the node applies to every `gallery -C` command) and refused with the same line; the web
    /// adds its status, code and field. Over real HTTP against a real node; the CLI's side is
    /// `ControlCommands`, what `gallery -C DIR` runs on the node.
    @Suite("Web and CLI rules")
    struct WebCLIParityTests {
        /// The line the command line prints for `command`'s refusal, nil when it is accepted.
        private func cliRefusal(_ command: ControlCommand, on node: SyncNode) -> String? {
            do {
                _ = try ControlCommands.execute(command, on: node)
                return nil
            } catch {
                return ActionError.from(error)?.description ?? error.localizedDescription
            }
        }

        @Test("names, titles, batch sizes, invitation lifetimes, member names: one rule and one line on both adapters")
        func sameRules() throws {
            let fixture = try WebBodyFixture()
            let node = fixture.node
            let item = try node.perform { try $0.insert([.titled("a")], into: "web", at: 0) }.id
            let long = String(repeating: "n", count: 256)
            // (web path, body, field, code, the CLI's command): each refused by both, with one line.
            let cases: [(String, String, String, String, ControlCommand)] = [
                ("/api/galleries", #"{"name": "a\tb"}"#, "name", "badName", .newGallery("a\tb")),
                ("/api/galleries", #"{"name": "\#(long)"}"#, "name", "badName", .newGallery(long)),
                ("/api/items/move", #"{"items": ["\#(item)"], "to": "\#(long)", "index": 0}"#, "to", "badName",
                 .move(items: [.id(item)], to: long, at: 0)),
                ("/api/galleries/rename", #"{"gallery": "web", "name": "\#(long)"}"#, "name", "badName", .renameGallery("web", to: long)),
                ("/api/galleries/rename", #"{"gallery": "\#(long)", "name": "x"}"#, "gallery", "badName", .renameGallery(long, to: "x")),
                ("/api/galleries/delete", #"{"gallery": "\#(long)"}"#, "gallery", "badName", .deleteGallery(long)),
                ("/api/items/update", #"{"item": "\#(item)", "field": "title", "value": "\#(String(repeating: "t", count: 1_025))"}"#,
                 "value", "badField", .update(UpdateRequest(item: .id(item), title: String(repeating: "t", count: 1_025)))),
                ("/api/items/update", #"{"item": "\#(item)", "field": "aspectRatio", "value": 0}"#, "value", "badField",
                 .update(UpdateRequest(item: .id(item), aspect: 0))),
                ("/api/members/revoke", #"{"node": "\#(long)"}"#, "node", "badNode", .revoke(node: long)),
            ]
            for (path, body, field, code, command) in cases {
                let web = try fixture.post(path, body)
                let line = try #require(cliRefusal(command, on: node), "the CLI accepted \(command)")
                #expect(web.status == 400 && web.json["error"] as? String == code && web.json["field"] as? String == field,
                        "\(path) \(body.prefix(60)): \(web.text.prefix(300))")
                #expect(web.json["message"] as? String == line, "\(path): web \(web.json["message"] ?? "") vs CLI \(line)")
            }
            // An invitation's lifetime: the CLI's bound (`ControlCommand.invitationSeconds`) on both.
            #expect(try fixture.post("/api/invite", #"{"expires": 604801}"#).json["error"] as? String == "badExpiry")
            #expect(cliRefusal(.invite(seconds: 604_801), on: node) != nil)
            #expect(try fixture.post("/api/invite", #"{"expires": 604800}"#).status != 400)
            #expect(throws: Never.self) { try ControlCommands.check(.invite(seconds: 604_800)) }
            // Nothing was changed by any refusal.
            #expect(node.read { $0.galleries } == ["web"])
            #expect(node.read { $0.item(item)?.fields[.title] } == .text("a"))
        }

        @Test("an unknown, deleted or repeated item: the same code on the web and the same line as the CLI's")
        func sameItemRefusals() throws {
            let fixture = try WebBodyFixture()
            let node = fixture.node
            let item = try node.perform { try $0.insert([.titled("a")], into: "web", at: 0) }.id
            let gone = try node.perform { try $0.insert([.titled("gone")], into: "web", at: 1) }.id
            _ = try node.perform { try $0.delete(gone) }
            let unknown = OpID("99@00000000000000ab")!
            let cases: [(String, String, Int, String, ControlCommand)] = [
                ("/api/items/move", #"{"items": ["\#(unknown)"], "to": "web", "index": 0}"#, 404, "unknownItem",
                 .move(items: [.id(unknown)], to: "web", at: 0)),
                ("/api/items/move", #"{"items": ["\#(item)", "\#(gone)"], "to": "web", "index": 0}"#, 404, "unknownItem",
                 .move(items: [.id(item), .id(gone)], to: "web", at: 0)),
                ("/api/items/move", #"{"items": ["\#(item)", "\#(item)"], "to": "web", "index": 0}"#, 409, "repeatedItem",
                 .move(items: [.id(item), .id(item)], to: "web", at: 0)),
                ("/api/items/delete", #"{"items": ["\#(item)", "\#(unknown)"]}"#, 404, "unknownItem", .delete([.id(item), .id(unknown)])),
                ("/api/items/delete", #"{"items": ["\#(gone)"]}"#, 404, "unknownItem", .delete([.id(gone)])),
                ("/api/items/restore", #"{"items": ["\#(unknown)"]}"#, 404, "unknownItem", .restore([.id(unknown)])),
                ("/api/items/restore", #"{"items": ["\#(item)"]}"#, 409, "notInTrash", .restore([.id(item)])),
                ("/api/trash/empty", #"{"items": ["\#(unknown)"]}"#, 404, "unknownItem", .emptyTrash([.id(unknown)])),
            ]
            for (path, body, status, code, command) in cases {
                let web = try fixture.post(path, body)
                let line = try #require(cliRefusal(command, on: node), "the CLI accepted \(command)")
                #expect(web.status == status && web.json["error"] as? String == code, "\(path) \(body): \(web.text)")
                #expect(web.json["message"] as? String == line, "\(path) \(body): web \(web.json["message"] ?? "") vs CLI \(line)")
            }
            #expect(node.read { try? $0.items(in: "web").map(\.id) } == [item])
        }

        @Test("a move without a destination stays in the items' gallery, as `move` without --to; two galleries: the same refusal")
        func moveWithoutDestination() throws {
            let fixture = try WebBodyFixture()
            let node = fixture.node
            let first = try node.perform { try $0.insert([.titled("first")], into: "web", at: 0) }.id
            let second = try node.perform { try $0.insert([.titled("second")], into: "web", at: 1) }.id
            let moved = try fixture.post("/api/items/move", #"{"items": ["\#(second)"], "index": 0}"#)
            #expect(moved.status == 200, "\(moved.text)")
            #expect(node.read { try? $0.items(in: "web").map(\.id) } == [second, first])

            try node.perform { try $0.createGallery("other") }
            let other = try node.perform { try $0.insert([.titled("other")], into: "other", at: 0) }.id
            let web = try fixture.post("/api/items/move", #"{"items": ["\#(first)", "\#(other)"], "index": 0}"#)
            let line = try #require(cliRefusal(.move(items: [.id(first), .id(other)], to: nil, at: 0), on: node))
            #expect(web.status == 400 && web.json["error"] as? String == "noDestination", "\(web.text)")
            #expect(web.json["message"] as? String == line)
        }

        @Test("a rename keeps the name as given (no trimming on one adapter only)")
        func renameAsGiven() throws {
            let fixture = try WebBodyFixture()
            let renamed = try fixture.post("/api/galleries/rename", #"{"gallery": "web", "name": " spaced "}"#)
            #expect(renamed.status == 200 && renamed.json["gallery"] as? String == " spaced ", "\(renamed.text)")
            #expect(fixture.node.read { $0.galleries } == [" spaced "])
            #expect(cliRefusal(.renameGallery(" spaced ", to: "web"), on: fixture.node) == nil)
            #expect(fixture.node.read { $0.galleries } == ["web"])
        }
    }
}
