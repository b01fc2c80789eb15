import Foundation
import GalleryModel
import GalleryWire
import Testing

/// The JSON of the control socket (protocol.md section 15): every command and every reply survives
/// a round trip, the documented shape is the one written, and malformed requests are refused with a
/// reason.
@Suite("Control command JSON")
struct ControlCommandCodingTests {
    static let replica = ReplicaID(0xab)
    static let id = OpID(counter: 7, replica: replica)

    /// One command of every case, with every optional argument set in one and absent in another.
    static let commands: [ControlCommand] = [
        .galleries,
        .newGallery("trip"),
        .list(gallery: nil),
        .list(gallery: "trip"),
        .add(AddRequest(sources: [.file("/tmp/a.png"), .url("https://example.org/b.png")])),
        .add(AddRequest(sources: [.url("https://example.org/c.png")], gallery: "trip", index: 2, title: "C", aspect: 1.5)),
        .move(item: .id(id), to: nil, at: 0),
        .move(item: .position(gallery: "a:b", index: 3), to: "trip", at: 1),
        .delete([.id(id), .position(gallery: "trip", index: 0)]),
        .update(UpdateRequest(item: .id(id), title: "T")),
        .update(UpdateRequest(item: .position(gallery: "trip", index: 1), aspect: 0.75)),
        .export(item: .id(id)),
        .peers,
        .status,
        .connect(host: "::1", port: 7000),
        .disconnect(peer: "bob"),
        .forget(peer: "bob"),
        .forget(peer: "127.0.0.1:7000"),
        .invite(seconds: 600),
        .members,
        .revoke(node: "carol"),
        .watch(gallery: nil),
        .watch(gallery: "trip"),
        .drag(DragRequest(items: [.item(.id(id)), .gallery("alice"), .item(.position(gallery: "bob", index: 0))], gallery: "trip")),
        .drag(DragRequest(items: [.gallery("alice")], gallery: "trip", index: 4, move: true, wait: true, timeout: 2.5)),
        .cancel([id, id.advanced(by: 1)]),
        .listTrash,
        .restore([.id(id), .position(gallery: "trip", index: 0)]),
        .emptyTrash([]),
        .emptyTrash([.id(id)]),
        .renameGallery("trip", to: "journey"),
        .deleteGallery("journey"),
        .undo,
        .redo,
    ]

    @Test("every command case is covered here")
    func everyCaseCovered() {
        #expect(Set(Self.commands.map(\.name)) == Set(ControlCommandName.allCases))
    }

    @Test("every command survives a JSON round trip, alone and inside a request", arguments: commands)
    func roundTrip(command: ControlCommand) throws {
        let decoded = try JSONDecoder().decode(ControlCommand.self, from: JSONEncoder().encode(command))
        #expect(decoded == command)
        let request = ControlRequest(id: 42, command: command, sent: 1_700_000_000.5)
        #expect(try JSONDecoder().decode(ControlRequest.self, from: JSONEncoder().encode(request)) == request)
    }

    @Test("the request's JSON is the documented shape: id, sent, command name, arguments")
    func documentedShape() throws {
        let request = ControlRequest(id: 3, command: .move(item: .position(gallery: "alice", index: 1), to: "trip", at: 0), sent: 10)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let json = String(decoding: try encoder.encode(request), as: UTF8.self)
        #expect(json == #"{"arguments":{"gallery":"trip","index":0,"item":"alice:1"},"command":"move","id":3,"sent":10}"#)
        let status = String(decoding: try encoder.encode(ControlRequest(id: 1, command: .status)), as: UTF8.self)
        #expect(status == #"{"command":"status","id":1}"#)
        let drag = ControlCommand.drag(DragRequest(items: [.item(.id(Self.id)), .gallery("alice")], gallery: "trip", move: true))
        #expect(String(decoding: try encoder.encode(drag), as: UTF8.self)
            == #"{"arguments":{"gallery":"trip","items":["7@00000000000000ab","alice"],"move":true,"wait":false},"command":"drag"}"#)
        let add = ControlCommand.add(AddRequest(sources: [.file("/a.png"), .url("https://x/y.png")]))
        #expect(String(decoding: try encoder.encode(add), as: UTF8.self)
            == #"{"arguments":{"sources":[{"file":"\/a.png"},{"url":"https:\/\/x\/y.png"}]},"command":"add"}"#)
    }

    @Test("hand-written JSON of a third-party client decodes")
    func handWritten() throws {
        let json = #"{"id": 9, "command": "connect", "arguments": {"host": "10.0.0.2", "port": 7001}}"#
        let request = try JSONDecoder().decode(ControlRequest.self, from: Data(json.utf8))
        #expect(request == ControlRequest(id: 9, command: .connect(host: "10.0.0.2", port: 7001)))
        let list = try JSONDecoder().decode(ControlRequest.self, from: Data(#"{"id": 1, "command": "list"}"#.utf8))
        #expect(list.command == .list(gallery: nil))
    }

    @Test("malformed requests are refused with their ID and a reason", arguments: [
        (#"{"id": 5, "command": "frobnicate"}"#, 5, "unknown command \"frobnicate\""),
        (#"{"id": 6, "command": "move", "arguments": {"item": "nowhere", "index": 0}}"#, 6, "\"nowhere\" is neither an item ID"),
        (#"{"id": 7, "command": "cancel", "arguments": {"transfers": ["x"]}}"#, 7, "\"x\" is not a transfer ID"),
        (#"{"id": 8, "command": "new-gallery"}"#, 8, "no \"arguments\""),
        (#"{"id": 9, "command": "move", "arguments": {"item": "a:1"}}"#, 9, "no \"arguments.index\""),
        ("not json", 0, "not JSON"),
    ])
    func malformed(json: String, id: Int, reason: String) {
        let bytes = Array(json.utf8)
        do {
            _ = try JSONDecoder().decode(ControlRequest.self, from: Data(bytes))
            Issue.record("\(json) decoded")
        } catch {
            #expect(ControlRequest.identifier(ofMalformed: bytes) == id)
            let problem = ControlRequest.problem(with: error)
            #expect(problem.hasPrefix("malformed control request: ") && problem.contains(reason), "\(problem)")
        }
    }

    /// One reply of every case.
    static let replies: [ControlReply] = [
        .done,
        .galleries([GalleryListing(gallery: "g", items: [])]),
        .galleries([]),
        .added([id, id.advanced(by: 1)]),
        .peers([PeerListing(name: "bob", replica: "00000000000000cd", address: "127.0.0.1:1", direction: "outbound",
                            state: "live", syncedUpTo: ["00000000000000cd": 3])]),
        .peers([PeerListing(name: "carol", replica: nil, address: "127.0.0.1:2", direction: "-", state: "disconnected",
                            syncedUpTo: nil, lastSeen: 1_700_000_000.5,
                            addresses: [PeerListing.Address(address: "127.0.0.1:2", source: "gossip", lastSeen: 1_700_000_000)],
                            nextRetry: 0.25, lastError: "127.0.0.1:2: connection refused")]),
        .status(NodeStatus(name: "a", replica: "00000000000000ab", address: nil, version: [:], ops: 1, buffered: 0,
                           peers: [], transfers: [], health: nil)),
        .drops([DropListing(source: "1@ab", item: "2@ab", gallery: "g", index: 0, action: .placeholder, transfer: "2@ab", outcome: nil)]),
        .item(ItemListing(id: "1@ab", title: nil, state: "ready", hash: "00", bytes: 3, mediaType: nil, aspectRatio: nil,
                          url: nil, progress: nil)),
        .changes([WatchEvent(event: .inserted, id: "1@ab", gallery: "g", index: 0)]),
        .changes([WatchEvent(event: .progress, done: 1, total: 2)]),
        .members([MemberListing(nodeID: "x36zqpdofdwg4t2w", name: "alice", added: 1, addedBy: "itself", revoked: nil, revokedBy: nil, isSelf: true),
                  MemberListing(nodeID: "meki6r2ngbfah7yq", name: "bob", added: 2, addedBy: "alice [x36zqpdofdwg4t2w]", revoked: 3,
                                revokedBy: "alice [x36zqpdofdwg4t2w]", isSelf: false)]),
    ]

    @Test("every reply and a refusal survive a JSON round trip", arguments: replies)
    func replyRoundTrip(reply: ControlReply) throws {
        let response = ControlResponse(id: 4, reply)
        #expect(try JSONDecoder().decode(ControlResponse.self, from: JSONEncoder().encode(response)) == response)
        let refused = ControlResponse(id: 4, refused: "no")
        let decoded = try JSONDecoder().decode(ControlResponse.self, from: JSONEncoder().encode(refused))
        #expect(decoded == refused && !decoded.ok && decoded.error == "no")
    }

    @Test("the listings print as --json has always printed them: sorted keys, unset item keys null, typed kinds as strings")
    func jsonOutputsUnchanged() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        func line(_ value: some Encodable) throws -> String { String(decoding: try encoder.encode(value), as: UTF8.self) }
        #expect(try line(WatchEvent(event: .inserted, id: "1@ab", gallery: "g", index: 0, title: "a/b", state: "ready"))
            == #"{"event":"inserted","gallery":"g","id":"1@ab","index":0,"state":"ready","title":"a/b"}"#)
        #expect(try line(WatchEvent(event: .watching, gallery: nil)) == #"{"event":"watching"}"#)
        let item = ItemListing(id: "1@ab", title: nil, state: "placeholder", hash: nil, bytes: nil, mediaType: nil, aspectRatio: 1.5,
                               url: "https://e.org/x", progress: .init(done: 1, total: 2))
        #expect(try line(GalleryListing(gallery: "g", items: [item]))
            == #"{"gallery":"g","items":[{"aspectRatio":1.5,"bytes":null,"hash":null,"id":"1@ab","mediaType":null,"#
            + #""progress":{"done":1,"total":2},"state":"placeholder","title":null,"url":"https://e.org/x"}]}"#)
        let drop = DropListing(source: "1@ab", item: "2@ab", gallery: "g", index: 0, action: .copied, transfer: nil, outcome: nil)
        #expect(try line(drop) == #"{"action":"copied","gallery":"g","index":0,"item":"2@ab","source":"1@ab"}"#)
        let status = NodeStatus(name: "a", replica: "00000000000000ab", address: "127.0.0.1:7000", version: ["00000000000000ab": 2],
                                ops: 2, buffered: 0, peers: [], transfers: [], health: nil)
        #expect(try line(status) == #"{"address":"127.0.0.1:7000","buffered":0,"name":"a","ops":2,"peers":[],"#
            + #""replica":"00000000000000ab","transfers":[],"version":{"00000000000000ab":2}}"#)
    }
}
