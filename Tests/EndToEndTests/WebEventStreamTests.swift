import Foundation
import Testing

/// The live event stream (http-api.md section 6) of a real `gallery serve --http`: changes made
/// by the command line arrive as `changes` messages; a client that reconnects with
/// `Last-Event-ID`, before or after the node restarts, gets exactly the changes it missed.
@Suite("web adapter: live events across processes", .serialized)
struct WebEventStreamTests {
    let base = FileManager.default.temporaryDirectory.appendingPathComponent("gallery-web-\(UUID().uuidString)")

    /// One `changes` message of a stream.
    struct Changes {
        var id: Int
        var events: [[String: Any]]
        /// `event:id` of each event, for comparisons.
        var summary: [String] { events.map { "\($0["event"] ?? ""):\($0["id"] as? String ?? "-")" } }
    }

    /// The `changes` messages in event-stream text; every message's `id:` line must match its data.
    static func changes(in text: String) -> [Changes] {
        text.components(separatedBy: "\n\n").compactMap { block in
            let lines = block.split(separator: "\n")
            guard lines.contains("event: changes"),
                  let id = lines.first(where: { $0.hasPrefix("id: ") }).flatMap({ Int($0.dropFirst(4)) }),
                  let data = lines.first(where: { $0.hasPrefix("data: ") }),
                  let object = try? JSONSerialization.jsonObject(with: Data(data.dropFirst(6).utf8)) as? [String: Any],
                  object["id"] as? Int == id else { return nil }
            return Changes(id: id, events: object["events"] as? [[String: Any]] ?? [])
        }
    }

    /// Opens the stream (`after` as a query, or `lastEventID` as the reconnecting browser sends it).
    private func open(_ node: WebNode, after: Int? = nil, lastEventID: Int? = nil) throws -> WebClient {
        let client = try node.client()
        let target = after.map { "/api/events?after=\($0)" } ?? "/api/events"
        client.send("GET", target, host: node.host, headers: node.fields() + (lastEventID.map { [("Last-Event-ID", String($0))] } ?? []))
        let head = try #require(client.response(headOnly: true))
        #expect(head.status == 200)
        #expect(head.headers["content-type"] == "text/event-stream; charset=utf-8")
        return client
    }

    private func image(_ name: String) throws -> String {
        let url = base.appendingPathComponent(name)
        try Data(WebAPITests.png(width: 30, height: 20, size: 1_000 + name.utf8.count)).write(to: url)
        return url.path
    }

    @Test("a CLI change arrives as one changes message; resume by Last-Event-ID within a run and after a restart: the missed changes, none twice")
    func resume() throws {
        defer { try? FileManager.default.removeItem(at: base) }
        let node = try WebNode("live", base: base)
        defer { node.stop() }
        let snapshot = try node.get("/api/galleries/live/items")
        let start = try #require(snapshot.json["lastEventId"] as? Int)

        let stream = try open(node, after: start)
        let a = try #require(try node.gallery("add", try image("a.png")).stdout.split(separator: "\n").first.map(String.init))
        let first = Self.changes(in: stream.streamText { !Self.changes(in: $0).isEmpty })
        #expect(first.count == 1)
        #expect(first.first?.summary == ["inserted:\(a)"])
        let item = try #require(first.first?.events.first?["item"] as? [String: Any])
        #expect(item["state"] as? String == "ready")
        #expect(first.first?.events.first?["index"] as? Int == 0)
        let seen = try #require(first.first?.id)
        #expect(seen > start)

        // Reconnect within the run: from the ring.
        let b = try #require(try node.gallery("add", try image("b.png")).stdout.split(separator: "\n").first.map(String.init))
        let again = try open(node, lastEventID: seen)
        let missed = Self.changes(in: again.streamText { !Self.changes(in: $0).isEmpty })
        #expect(missed.map(\.summary) == [["inserted:\(b)"]])
        let afterB = try #require(missed.last?.id)

        // Changes while no client listens, then a restart; the browser comes back with its last ID.
        let c = try #require(try node.gallery("add", try image("c.png")).stdout.split(separator: "\n").first.map(String.init))
        #expect(try node.gallery("move", a, "--at", "2").status == 0)
        #expect(try node.gallery("delete", b).status == 0)
        let expected = try node.ids("live")
        node.stop()
        try node.start()
        let resumed = try open(node, lastEventID: afterB)
        let caughtUp = Self.changes(in: resumed.streamText { !Self.changes(in: $0).isEmpty })
        #expect(caughtUp.count == 1)
        let summary = Set(caughtUp.first?.summary ?? [])
        // `delete` moves to the Trash: a `trashed` event, which the page treats as a removal.
        #expect(summary == ["inserted:\(c)", "moved:\(a)", "trashed:\(b)"], "\(summary)")
        #expect(!summary.contains("inserted:\(a)") && !summary.contains("inserted:\(b)"))
        // The page's rule (remove moved/deleted/trashed, place inserted/moved by index) gives the node's order.
        var order = [a, b].filter { id in
            !(caughtUp.first?.events.contains { ["moved", "deleted", "trashed"].contains($0["event"] as? String) && $0["id"] as? String == id } ?? false)
        }
        let places = (caughtUp.first?.events ?? []).filter { ["inserted", "moved"].contains($0["event"] as? String) }
            .sorted { ($0["index"] as? Int ?? 0) < ($1["index"] as? Int ?? 0) }
        for place in places { order.insert(place["id"] as? String ?? "", at: min(place["index"] as? Int ?? 0, order.count)) }
        #expect(order == expected)
        let afterRestart = try #require(caughtUp.first?.id)
        #expect(try node.get("/api/status").json["lastEventId"] as? Int == afterRestart)

        // Then live again, from there: only the new change.
        resumed.discardPending()
        let d = try #require(try node.gallery("add", try image("d.png")).stdout.split(separator: "\n").first.map(String.init))
        let next = Self.changes(in: resumed.streamText { !Self.changes(in: $0).isEmpty })
        #expect(next.map(\.summary) == [["inserted:\(d)"]])
        #expect((next.first?.id ?? 0) > afterRestart)

        // An ID ahead of the node (a restored node) gets reset.
        let ahead = try open(node, lastEventID: afterRestart + 1_000)
        #expect(ahead.streamText { $0.contains("event: reset") }.contains("event: reset"))
    }

    @Test("a cross-node drop over HTTP starts a transfer (202); its cancel deletes the placeholder, and the deleted event says why")
    func dropAndCancel() throws {
        defer { try? FileManager.default.removeItem(at: base) }
        let alice = try WebNode("alice", base: base)
        defer { alice.stop() }
        let listening = try #require(alice.process?.endpoint)
        let bob = try WebNode("bob", base: base, arguments: [
            "--peer", listening.description, "--secret-file", alice.directory.appendingPathComponent("secret").path,
        ])
        defer { bob.stop() }
        let space = try #require(try alice.get("/api/status").json["space"] as? String)
        #expect(try bob.get("/api/status").json["space"] as? String == space)
        let item = try #require(try alice.gallery("add", try image("x.png")).stdout.split(separator: "\n").first.map(String.init))
        #expect(waitUntil { (try? bob.ids("alice"))?.contains(item) == true })
        // The holder goes away: bob cannot fetch the bytes, the placeholder waits.
        alice.stop()
        let stream = try open(bob, after: try #require(try bob.get("/api/status").json["lastEventId"] as? Int))
        let descriptor: [String: Any] = ["kind": "gallerysync.items", "version": 1, "space": space, "node": "alice",
                                         "gallery": "alice", "wholeGallery": false, "items": [["id": item]]]
        #expect(try bob.post("/api/drops", ["descriptor": descriptor.merging(["space": String(repeating: "0", count: 32)]) { $1 },
                                             "to": "bob", "index": 0, "operation": "copy"]).json["error"] as? String == "otherSpace")
        let dropped = try bob.post("/api/drops", ["descriptor": descriptor, "to": "bob", "index": 0, "operation": "copy"])
        #expect(dropped.status == 202, "\(dropped.text)")
        let transfer = try #require((dropped.json["placements"] as? [[String: Any]])?.first?["transfer"] as? String)
        #expect(try bob.items("bob").first?["state"] as? String == "placeholder")
        #expect(try bob.post("/api/transfers/cancel", ["transfer": transfer]).status == 200)
        #expect(try bob.ids("bob").isEmpty)
        let text = stream.streamText { Self.changes(in: $0).contains { $0.summary.contains("deleted:\(transfer)") } }
        let deletion = Self.changes(in: text).flatMap(\.events).first { $0["event"] as? String == "deleted" && $0["id"] as? String == transfer }
        #expect(deletion?["reason"] as? String == "cancelled")
    }

    private func waitUntil(timeout: TimeInterval = 20, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if condition() { return true }
            usleep(50_000)
        }
        return condition()
    }
}
