import Foundation
import GalleryModel
import GalleryNode
@testable import GalleryWeb
import Testing

extension NodeSuites {
    /// Every changing route of the web API decodes its body into its own type (`WebRequestBody`):
    /// over real HTTP on 127.0.0.1 against a real node, a malformed body, a field of the wrong
    /// type, a missing required field and an oversized value each get a 400 whose code and
    /// `field` name the field, never a 500 nor a closed connection, and change nothing.
    @Suite("Web request bodies")
    struct WebRequestBodyTests {
        /// The bad bodies of one route: each (body, field, code); `missing` nil for a route whose
        /// fields are all optional. `valid` decodes.
        struct BadBodies {
            let valid: String
            let wrongType: (String, String, String)
            let missing: (String, String, String)?
            let oversized: (String, String, String)
        }

        static let id = "1@00000000000000ab"
        static let ids10001 = "[" + Array(repeating: "\"\(id)\"", count: 10_001).joined(separator: ",") + "]"
        static let long256 = String(repeating: "n", count: 256)
        static let file = #"{"name": "a.png", "size": 1, "mediaType": "image/png"}"#

        /// One entry per changing route: the table `everyRouteHasATypeAndATest` holds to `WebRoute.table`.
        static let cases: [WebRoute.Change: BadBodies] = [
            .newGallery: BadBodies(valid: #"{"name": "trip"}"#, wrongType: (#"{"name": 7}"#, "name", "badName"),
                                   missing: ("{}", "name", "badName"), oversized: (#"{"name": "\#(long256)"}"#, "name", "badName")),
            .move: BadBodies(valid: #"{"items": ["\#(id)"], "to": "web", "index": 0}"#,
                             wrongType: (#"{"items": ["\#(id)"], "index": "0"}"#, "index", "badIndex"),
                             missing: (#"{"to": "web"}"#, "items", "badItems"), oversized: (#"{"items": \#(ids10001)}"#, "items", "badItems")),
            .delete: BadBodies(valid: #"{"items": ["\#(id)"]}"#, wrongType: (#"{"items": "\#(id)"}"#, "items", "badItems"),
                               missing: ("{}", "items", "badItems"), oversized: (#"{"items": \#(ids10001)}"#, "items", "badItems")),
            .update: BadBodies(valid: #"{"item": "\#(id)", "field": "title", "value": "t"}"#,
                               wrongType: (#"{"item": "\#(id)", "field": "aspectRatio", "value": "wide"}"#, "value", "badField"),
                               missing: (#"{"field": "title", "value": "t"}"#, "item", "badItems"),
                               oversized: (#"{"item": "\#(id)", "field": "title", "value": "\#(String(repeating: "t", count: 1_025))"}"#, "value", "badField")),
            .addURL: BadBodies(valid: #"{"url": "https://example.org/a.png"}"#, wrongType: (#"{"url": ["x"]}"#, "url", "badURL"),
                               missing: (#"{"to": "web"}"#, "url", "badURL"),
                               oversized: (#"{"url": "https://e.org/\#(String(repeating: "a", count: 8_180))"}"#, "url", "badField")),
            .cancelTransfer: BadBodies(valid: #"{"transfer": "\#(id)"}"#, wrongType: (#"{"transfer": 5}"#, "transfer", "badItems"),
                                       missing: ("{}", "transfer", "badItems"),
                                       oversized: (#"{"transfer": "1@\#(String(repeating: "a", count: 100_000))"}"#, "transfer", "badItems")),
            .announceUploads: BadBodies(valid: #"{"to": "web", "files": [\#(file)]}"#,
                                        wrongType: (#"{"to": "web", "files": [{"name": "a.png", "size": "big", "mediaType": "image/png"}]}"#, "files", "badFiles"),
                                        missing: (#"{"files": [\#(file)]}"#, "to", "badName"),
                                        oversized: (#"{"to": "web", "files": [\#(Array(repeating: file, count: 10_001).joined(separator: ","))]}"#, "files", "badFiles")),
            .drop: BadBodies(valid: #"{"descriptor": {"space": "x", "items": [{"id": "\#(id)"}]}, "to": "web"}"#,
                             wrongType: (#"{"descriptor": "x", "to": "web"}"#, "descriptor", "badDescriptor"),
                             missing: (#"{"to": "web"}"#, "descriptor", "badDescriptor"),
                             oversized: (#"{"descriptor": {"space": "x", "items": [\#(Array(repeating: #"{"id": "\#(id)"}"#, count: 10_001).joined(separator: ","))]}, "to": "web"}"#,
                                         "descriptor", "badDescriptor")),
            .restore: BadBodies(valid: #"{"items": ["\#(id)"]}"#, wrongType: (#"{"items": [7]}"#, "items", "badItems"),
                                missing: ("{}", "items", "badItems"), oversized: (#"{"items": \#(ids10001)}"#, "items", "badItems")),
            .emptyTrash: BadBodies(valid: "{}", wrongType: (#"{"items": 3}"#, "items", "badItems"), missing: nil,
                                   oversized: (#"{"items": \#(ids10001)}"#, "items", "badItems")),
            .renameGallery: BadBodies(valid: #"{"gallery": "web", "name": "web2"}"#, wrongType: (#"{"gallery": "web", "name": false}"#, "name", "badName"),
                                      missing: (#"{"gallery": "web"}"#, "name", "badName"),
                                      oversized: (#"{"gallery": "web", "name": "\#(long256)"}"#, "name", "badName")),
            .deleteGallery: BadBodies(valid: #"{"gallery": "web"}"#, wrongType: (#"{"gallery": 1}"#, "gallery", "badName"),
                                      missing: ("{}", "gallery", "badName"), oversized: (#"{"gallery": "\#(long256)"}"#, "gallery", "badName")),
            .undo: BadBodies(valid: #"{"entry": 1}"#, wrongType: (#"{"entry": "1"}"#, "entry", "badEntry"),
                             missing: (#"{"redo": true}"#, "entry", "badEntry"), oversized: (#"{"entry": 1e300}"#, "entry", "badEntry")),
            .invite: BadBodies(valid: "{}", wrongType: (#"{"expires": "600"}"#, "expires", "badExpiry"), missing: nil,
                               oversized: (#"{"expires": 604801}"#, "expires", "badExpiry")),
            .revoke: BadBodies(valid: #"{"node": "bob"}"#, wrongType: (#"{"node": 1}"#, "node", "badNode"),
                               missing: ("{}", "node", "badNode"), oversized: (#"{"node": "\#(long256)"}"#, "node", "badNode")),
        ]

        /// Bodies that are not a JSON object, refused on every route with 400 `badJSON`.
        static let malformed = ["", "{", "[]", "\"x\"", "null", "7", #"{"name": tru}"#, "{}}", #"{"a" 1}"#,
                                String(repeating: "[", count: 100_000), String(repeating: #"{"a":"#, count: 50_000)]

        /// The path of a changing route, from the route table.
        static func path(of change: WebRoute.Change) throws -> String {
            try #require(WebRoute.table.first { $0.route == .change(change) }?.path)
        }

        @Test("every changing route of the route table has a request type that decodes its body, and a case here")
        func everyRouteHasATypeAndATest() throws {
            let tableChanges = WebRoute.table.compactMap { entry -> WebRoute.Change? in
                guard case .change(let change) = entry.route else { return nil }
                #expect(entry.method == "POST", "\(entry.path)")
                return change
            }
            #expect(Set(tableChanges) == Set(WebRoute.Change.allCases), "every change is in the table once")
            #expect(tableChanges.count == WebRoute.Change.allCases.count)
            for change in WebRoute.Change.allCases {
                let cases = try #require(Self.cases[change], "\(change) has no bad-body test")
                let decoded = try change.bodyType.decode(Array(cases.valid.utf8))
                #expect(ObjectIdentifier(type(of: decoded)) == ObjectIdentifier(change.bodyType), "\(change)")
            }
            // The routes without a JSON body are read routes, uploads and the page.
            for entry in WebRoute.table where entry.method != "POST" {
                #expect(entry.method == "GET", "\(entry.path)")
            }
        }

        @Test("per route: malformed, wrong type, missing and oversized bodies are a 400 naming the field; nothing changes")
        func badBodies() throws {
            let fixture = try WebBodyFixture()
            let before = fixture.node.read { $0.galleries }
            for change in WebRoute.Change.allCases {
                let path = try Self.path(of: change)
                let cases = try #require(Self.cases[change])
                for body in Self.malformed {
                    let answer = try fixture.post(path, body)
                    #expect(answer.status == 400 && answer.json["error"] as? String == "badJSON" && answer.json["field"] == nil,
                            "\(path) \(body.prefix(40)): \(answer.status) \(answer.text.prefix(200))")
                }
                for (kind, bad) in [("wrong type", cases.wrongType), ("missing", cases.missing), ("oversized", cases.oversized)] {
                    guard let (body, field, code) = bad else { continue }
                    let answer = try fixture.post(path, body)
                    #expect(answer.status == 400, "\(path) \(kind): \(answer.status) \(answer.text.prefix(300))")
                    #expect(answer.json["error"] as? String == code && answer.json["field"] as? String == field,
                            "\(path) \(kind): \(answer.text.prefix(300))")
                    #expect((answer.json["message"] as? String)?.isEmpty == false, "\(path) \(kind)")
                }
            }
            // The node kept serving on the same connection, and nothing changed.
            let status = try fixture.get("/api/status")
            #expect(status.status == 200, "\(status.text)")
            #expect(fixture.node.read { $0.galleries } == before)
            #expect(fixture.node.read { try? $0.count(in: "web") } == 0)
        }

        @Test("every field of every route given every JSON type: never a 500, never a closed connection")
        func typeConfusion() throws {
            let fixture = try WebBodyFixture()
            let values = ["null", "true", "0", "-1", "1.5", "1e300", "\"\"", "\"x\"", "[]", "{}", "[\"x\"]", "[1]", "{\"a\": 1}", "[[]]"]
            var sent = 0
            for change in WebRoute.Change.allCases {
                let path = try Self.path(of: change)
                let valid = try #require(Self.cases[change]?.valid)
                let object = try #require(try JSONSerialization.jsonObject(with: Data(valid.utf8)) as? [String: Any])
                for key in object.keys.sorted() + ["items", "to", "index"] {
                    for value in values {
                        var members = try object.map { name, member -> String in
                            let text = String(decoding: try JSONSerialization.data(withJSONObject: member, options: [.fragmentsAllowed]), as: UTF8.self)
                            return "\"\(name)\": \(name == key ? value : text)"
                        }
                        if object[key] == nil { members.append("\"\(key)\": \(value)") }
                        let body = "{" + members.joined(separator: ", ") + "}"
                        let answer = try fixture.post(path, body)
                        sent += 1
                        // This node keeps no blobs: a well-formed cancel is the use case's 503 `noBlobs`, not a failure.
                        let refusedByUseCase = answer.status == 503 && answer.json["error"] as? String == "noBlobs"
                        #expect(answer.status != 0 && (answer.status < 500 || refusedByUseCase),
                                "\(path) \(body.prefix(120)): \(answer.status) \(answer.text.prefix(200))")
                        if answer.status == 400 { #expect(answer.json["error"] is String && answer.json["message"] is String) }
                    }
                }
            }
            #expect(sent > 500)
            #expect(try fixture.get("/api/status").status == 200)
        }
    }
}
