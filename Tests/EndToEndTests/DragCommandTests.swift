import Foundation
import GalleryTestSupport
import Testing

/// `gallery -C DIR drag` and `cancel` between real `gallery serve` processes: local and cross-app
/// drops, placeholders, failures, restarts, and the conflict rules 10-13.
@Suite("drag and drop between nodes", .serialized)
struct DragCommandTests {
    /// One line of `drag` output: `SOURCE -> GALLERY:INDEX ACTION ITEM transfer TRANSFER`.
    struct DropLine: Equatable {
        let source: String, place: String, action: String, item: String, transfer: String

        init?(_ line: some StringProtocol) {
            let words = String(line).split(separator: " ").map(String.init)
            guard words.count == 7, words[1] == "->", words[5] == "transfer" else { return nil }
            (source, place, action, item, transfer) = (words[0], words[2], words[3], words[4], words[6])
        }
    }

    private func dropLines(_ output: String) -> [DropLine] {
        output.split(separator: "\n").compactMap(DropLine.init)
    }

    /// alice (holding the bytes) dials bob; both see alice's items.
    private func aliceAndBob(files: [(String, Int)]) throws -> (NodeSpace, ids: [String], paths: [String]) {
        let space = NodeSpace()
        try space.start("bob")
        try space.start("alice", peers: ["bob"])
        let paths = try files.map { try space.image($0.0, bytes: $0.1) }
        let added = try space.gallery("alice", ["add"] + paths)
        #expect(added.status == 0, "\(added.stderr)")
        let ids = added.stdout.split(separator: "\n").map(String.init)
        #expect(try space.waitUntil { try space.column("id", on: "bob", "alice") == ids })
        return (space, ids, paths)
    }

    @Test("cross-app drag --move --wait: placeholders at once, bytes fetched and verified, progress watched, sources deleted after the commit")
    func crossAppMove() throws {
        let (space, ids, paths) = try aliceAndBob(files: [("a.png", 300_000), ("b.png", 3_000_000)])
        defer { space.tearDown() }
        let hashes = try space.column("hash", on: "alice", "alice")
        let watcher = try ServeProcess(["-C", space.directory("bob").path, "watch", "bob", "--json"], serve: false)
        defer { #expect(watcher.stop(signal: SIGINT, timeout: 10) != nil, "watch did not stop on SIGINT") }
        #expect(watcher.waitForLines(1))

        let drag = try space.gallery("bob", "drag", "alice:0", "alice:1", "--to", "bob", "--at", "0", "--move", "--wait")
        #expect(drag.status == 0, "\(drag.stdout) \(drag.stderr)")
        let lines = dropLines(drag.stdout)
        #expect(lines.map(\.source) == ids)
        #expect(lines.map(\.place) == ["bob:0", "bob:1"])
        #expect(lines.map(\.action) == ["placeholder", "placeholder"])
        #expect(lines.map(\.item) == lines.map(\.transfer))
        let transfers = lines.map(\.transfer)
        #expect(drag.stdout.split(separator: "\n").suffix(2) == transfers.map { "transfer \($0) committed"[...] })

        // Bob's gallery holds the two items, ready, with the sources' hashes, and no progress left.
        let items = try #require(try space.items(on: "bob", "bob"))
        #expect(items.map { $0["id"] as? String } == transfers)
        #expect(items.map { $0["state"] as? String } == ["ready", "ready"])
        #expect(items.map { $0["hash"] as? String } == hashes)
        #expect(items.allSatisfy { $0["progress"] is NSNull })
        // The sources are deleted, on both nodes; the copies are everywhere.
        #expect(try space.waitUntil {
            try space.column("id", on: "alice", "alice").isEmpty && space.column("id", on: "alice", "bob") == transfers
        })
        // The bytes bob holds are the file's.
        let exported = space.base.appendingPathComponent("exported.png")
        #expect(try space.gallery("bob", "export", "bob:1", exported.path).status == 0)
        #expect(FileManager.default.contents(atPath: exported.path) == FileManager.default.contents(atPath: paths[1]))

        // The watcher saw each placeholder inserted, its progress to the last byte, then its commit.
        #expect(watcher.waitForLines(1 + 2 + 2 + 2, timeout: 20), "\(watcher.standardOutput)")
        let events = watcher.standardOutput.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        for transfer in transfers {
            let mine = events.filter { $0["id"] as? String == transfer }
            let kinds = mine.compactMap { $0["event"] as? String }
            #expect(kinds.first == "inserted" && kinds.last == "committed", "\(kinds)")
            #expect(mine.first?["state"] as? String == "placeholder")
            let last = mine.last { $0["event"] as? String == "progress" }
            #expect(last != nil && last?["done"] as? Int == last?["total"] as? Int, "\(mine)")
        }
    }

    @Test("local drop: --move keeps the items' IDs as one run at INDEX, --copy inserts copies, no placeholder")
    func localDrop() throws {
        let space = NodeSpace()
        defer { space.tearDown() }
        try space.start("alice")
        let paths = try (0..<3).map { try space.image("\($0).png", bytes: 2_000 + $0) }
        let ids = try space.gallery("alice", ["add"] + paths).stdout.split(separator: "\n").map(String.init)
        #expect(ids.count == 3)
        #expect(try space.gallery("alice", "new-gallery", "trip").status == 0)
        let url = try space.gallery("alice", "add", "https://example.org/x.jpg", "--to", "trip").stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)

        let moved = try space.gallery("alice", "drag", "alice:2", ids[0], "--to", "trip", "--at", "0", "--move")
        #expect(moved.status == 0, "\(moved.stderr)")
        #expect(dropLines(moved.stdout).map { "\($0.source) \($0.place) \($0.action) \($0.item) \($0.transfer)" }
            == ["\(ids[2]) trip:0 moved \(ids[2]) -", "\(ids[0]) trip:1 moved \(ids[0]) -"])
        #expect(try space.column("id", on: "alice", "trip") == [ids[2], ids[0], url])
        #expect(try space.column("id", on: "alice", "alice") == [ids[1]])

        // Reorder within a gallery: INDEX counts the gallery without the dragged items.
        #expect(try space.gallery("alice", "drag", "trip:2", "trip:0", "--to", "trip", "--at", "1", "--move").status == 0)
        #expect(try space.column("id", on: "alice", "trip") == [ids[0], url, ids[2]])

        // A copy (the default) is appended, keeps the fields, and leaves the source.
        let copied = try space.gallery("alice", "drag", "trip:2", "--to", "alice")
        let line = try #require(dropLines(copied.stdout).first)
        #expect(line.action == "copied" && line.place == "alice:1" && line.transfer == "-" && line.item != ids[2])
        #expect(try space.column("id", on: "alice", "alice") == [ids[1], line.item])
        #expect(try space.column("hash", on: "alice", "alice").last == space.column("hash", on: "alice", "trip").last)
        #expect(try space.column("state", on: "alice", "alice") == ["ready", "ready"])
        #expect(try space.column("id", on: "alice", "trip") == [ids[0], url, ids[2]])

        // Items from several galleries land as one run, in the order given.
        #expect(try space.gallery("alice", "new-gallery", "mix").status == 0)
        let mixed = try space.gallery("alice", "drag", "trip:1", "alice:0", "trip:0", "--to", "mix")
        #expect(dropLines(mixed.stdout).map(\.place) == ["mix:0", "mix:1", "mix:2"])
        #expect(try space.column("title", on: "alice", "mix") == [
            "x.jpg", space.column("title", on: "alice", "alice")[0], space.column("title", on: "alice", "trip")[0],
        ])
    }

    @Test("forbidden drops and bad arguments are refused and change nothing")
    func forbiddenDrops() throws {
        let space = NodeSpace()
        defer { space.tearDown() }
        try space.start("alice")
        _ = try space.gallery("alice", "add", try space.image("a.png"))
        #expect(try space.gallery("alice", "new-gallery", "trip").status == 0)
        func ops() throws -> Int? {
            let status = try space.gallery("alice", "status", "--json")
            return (try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any])?["ops"] as? Int
        }
        let before = try ops()
        let refused: [([String], Int32, String)] = [
            (["alice:0", "--to", "nowhere"], 1, "no gallery named"),
            (["alice", "--to", "alice"], 1, "into itself"),
            (["99@00000000000000ab", "--to", "trip"], 1, "no item"),
            (["alice:5", "--to", "trip"], 1, "out of range"),
            (["alice:0", "alice:0", "--to", "trip"], 1, "twice"),
            (["alice:0", "--to", "trip", "--at", "9"], 1, "out of range"),
            (["alice:0", "--to", "trip", "--copy", "--move"], 64, "exclude"),
            (["alice:0"], 64, "--to"),
            (["--to", "trip"], 64, "ITEM"),
            (["alice:0", "--to", "trip", "--at", "-1"], 64, "--at"),
            (["alice:0", "--to", "trip", "--timeout", "0"], 64, "--timeout"),
        ]
        for (arguments, status, message) in refused {
            let result = try space.gallery("alice", ["drag"] + arguments)
            #expect(result.status == status, "drag \(arguments): \(result.stderr)")
            #expect(result.stderr.contains(message), "drag \(arguments): \(result.stderr)")
            #expect(result.stdout.isEmpty)
        }
        #expect(try space.gallery("alice", "cancel", "7@00000000000000ab").status == 1)
        #expect(try ops() == before)
    }

    @Test("source node down: the placeholder shows everywhere with progress and in status; cancel deletes it; a source back in time completes the transfer")
    func waitingForTheSource() throws {
        let (space, ids, _) = try aliceAndBob(files: [("a.png", 200_000)])
        defer { space.tearDown() }
        try space.start("carol", peers: ["bob"])
        #expect(try space.waitUntil { try space.column("id", on: "carol", "alice") == ids })
        let size = try #require(try space.items(on: "alice", "alice")?.first?["bytes"] as? Int)
        #expect(space.stop("alice"))

        let first = try space.gallery("bob", "drag", "alice:0", "--to", "bob")
        #expect(first.status == 0, "\(first.stderr)")
        let transfer = try #require(dropLines(first.stdout).first).transfer
        // Every node lists the placeholder; the dropping node shows its progress and the transfer.
        #expect(try space.waitUntil { try space.column("state", on: "carol", "bob") == ["placeholder"] })
        let placeholder = try #require(try space.items(on: "bob", "bob")?.first)
        #expect(placeholder["id"] as? String == transfer && placeholder["state"] as? String == "placeholder")
        let progress = placeholder["progress"] as? [String: Any]
        #expect(progress?["done"] as? Int == 0 && progress?["total"] as? Int == size)
        let status = try space.gallery("bob", "status", "--json")
        let listed = (try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any])?["transfers"] as? [[String: Any]]
        #expect(listed?.map { $0["transfer"] as? String } == [transfer])

        // cancel: the placeholder is deleted everywhere; the source is untouched.
        #expect(try space.gallery("bob", "cancel", transfer).status == 0)
        #expect(try space.column("id", on: "bob", "bob").isEmpty)
        #expect(try space.waitUntil { try space.column("id", on: "carol", "bob").isEmpty })
        #expect(try space.column("id", on: "bob", "alice") == ids)
        let again = try space.gallery("bob", "cancel", transfer)
        #expect(again.status == 1 && again.stderr.contains("already ended"), "\(again.stderr)")

        // A second drag waits for the source node, which comes back before the deadline.
        let waiting = try ServeProcess(
            ["-C", space.directory("bob").path, "drag", "alice:0", "--to", "bob", "--timeout", "60", "--wait"], serve: false)
        defer { waiting.stop(signal: SIGKILL) }
        #expect(waiting.waitForLines(1))
        try space.start("alice")
        #expect(waiting.waitForExit(timeout: 60) == 0, "\(waiting.standardOutput) \(waiting.standardError)")
        #expect(waiting.standardOutput.contains("committed"))
        #expect(try space.column("state", on: "bob", "bob") == ["ready"])
        #expect(try space.column("id", on: "bob", "alice") == ids)
    }

    @Test("the node that added an item is down: its bytes are fetched from another peer that holds them")
    func fallbackPeer() throws {
        let (space, ids, paths) = try aliceAndBob(files: [("a.png", 400_000)])
        defer { space.tearDown() }
        try space.start("carol", peers: ["bob", "alice"])
        #expect(try space.waitUntil { try space.column("id", on: "carol", "alice") == ids })
        // carol (connected to both) takes a copy (so she holds the bytes), then alice, who added the item, stops.
        #expect(try space.gallery("carol", "drag", "alice:0", "--to", "carol", "--wait").status == 0)
        #expect(space.stop("alice"))
        let drag = try space.gallery("bob", "drag", "alice:0", "--to", "bob", "--wait", "--timeout", "30")
        #expect(drag.status == 0, "\(drag.stdout) \(drag.stderr)")
        let exported = space.base.appendingPathComponent("from-carol.png")
        #expect(try space.gallery("bob", "export", "bob:0", exported.path).status == 0)
        #expect(FileManager.default.contents(atPath: exported.path) == FileManager.default.contents(atPath: paths[0]))
    }

    @Test("bytes two hops away: the node in between fetches them for itself and serves them on the retry")
    func bytesCrossHops() throws {
        // A chain: alice - bob - carol; carol is not connected to alice, who holds the bytes.
        let (space, ids, paths) = try aliceAndBob(files: [("far.png", 300_000)])
        defer { space.tearDown() }
        try space.start("carol", peers: ["bob"])
        #expect(try space.waitUntil { try space.column("id", on: "carol", "alice") == ids })
        let drag = try space.gallery("carol", "drag", "alice:0", "--to", "carol", "--wait", "--timeout", "30")
        #expect(drag.status == 0, "\(drag.stdout) \(drag.stderr)")
        let exported = space.base.appendingPathComponent("far-on-carol.png")
        #expect(try space.gallery("carol", "export", "carol:0", exported.path).status == 0)
        #expect(FileManager.default.contents(atPath: exported.path) == FileManager.default.contents(atPath: paths[0]))
        // bob relayed them: he holds them now, without any item of his own changing.
        let hash = try #require(try space.column("hash", on: "alice", "alice").first)
        #expect(FileManager.default.fileExists(atPath: space.directory("bob").appendingPathComponent("blobs/\(hash.prefix(2))/\(hash)").path))
        #expect(try space.column("id", on: "bob", "bob").isEmpty)
    }

    @Test("timeout: the placeholder is deleted, the source untouched, --wait exits 1 with the reason")
    func timeout() throws {
        let (space, ids, _) = try aliceAndBob(files: [("a.png", 10_000)])
        defer { space.tearDown() }
        #expect(space.stop("alice"))
        let drag = try space.gallery("bob", "drag", "alice:0", "--to", "bob", "--timeout", "1", "--wait")
        #expect(drag.status == 1)
        let transfer = try #require(dropLines(drag.stdout).first).transfer
        #expect(drag.stdout.contains("transfer \(transfer) failed: timed out"), "\(drag.stdout)")
        #expect(drag.stderr.contains("1 of 1 transfers failed"))
        #expect(try space.column("id", on: "bob", "bob").isEmpty)
        #expect(try space.column("id", on: "bob", "alice") == ids)
    }

    @Test("hash mismatch: bytes that do not hash to the item's hash are refused, the placeholder deleted, the source untouched")
    func hashMismatch() throws {
        let (space, ids, _) = try aliceAndBob(files: [("a.png", 50_000)])
        defer { space.tearDown() }
        // alice's stored copy of the blob rots: same length, one byte changed.
        let hash = try #require(try space.column("hash", on: "alice", "alice").first)
        let blob = space.directory("alice").appendingPathComponent("blobs/\(hash.prefix(2))/\(hash)")
        var bytes = try #require(FileManager.default.contents(atPath: blob.path))
        bytes[bytes.count / 2] ^= 0xFF
        try bytes.write(to: blob)
        let drag = try space.gallery("bob", "drag", "alice:0", "--to", "bob", "--move", "--wait")
        #expect(drag.status == 1)
        #expect(drag.stdout.contains("failed: hash mismatch"), "\(drag.stdout)")
        #expect(try space.column("id", on: "bob", "bob").isEmpty)
        #expect(try space.column("id", on: "bob", "alice") == ids)
        #expect(!FileManager.default.fileExists(atPath: space.directory("bob").appendingPathComponent("blobs/\(hash.prefix(2))/\(hash)").path))
    }

    @Test("kill -9 of the dropping node: its transfer resumes after the restart and commits; one past its deadline is deleted")
    func restartResumes() throws {
        let (space, ids, _) = try aliceAndBob(files: [("a.png", 500_000), ("b.png", 20_000)])
        defer { space.tearDown() }
        #expect(space.stop("alice"))
        let long = try #require(dropLines(try space.gallery("bob", "drag", "alice:0", "--to", "bob", "--timeout", "120").stdout).first)
        let dropped = Date()
        let short = try #require(dropLines(try space.gallery("bob", "drag", "alice:1", "--to", "bob", "--timeout", "1").stdout).first)
        #expect(try space.column("id", on: "bob", "bob") == [long.transfer, short.transfer])
        space.kill("bob")
        // The short deadline passes while bob is down.
        while Date().timeIntervalSince(dropped) < 1.5 { usleep(50_000) }
        try space.start("bob")
        try space.start("alice")
        #expect(try space.waitUntil(timeout: 60) {
            try space.column("id", on: "bob", "bob") == [long.transfer] && space.column("state", on: "bob", "bob") == ["ready"]
        }, "bob's gallery: \((try? space.items(on: "bob", "bob")) ?? nil ?? [])")
        #expect(try space.column("hash", on: "bob", "bob") == [try space.column("hash", on: "bob", "alice")[0]])
        #expect(try space.column("id", on: "bob", "alice") == ids)
    }

    @Test("conflicts: placeholder deleted by another node (rule 10), edits around it (rule 11), source deleted in flight (rule 13)")
    func conflictsAroundAPlaceholder() throws {
        let (space, ids, _) = try aliceAndBob(files: [("p.png", 100_000), ("q.png", 100_000), ("r.png", 100_000)])
        defer { space.tearDown() }
        try space.start("carol", peers: ["bob"])
        #expect(try space.waitUntil { try space.column("id", on: "carol", "alice") == ids })
        #expect(space.stop("alice"))
        func dragInBackground(_ item: String, _ extra: String...) throws -> ServeProcess {
            let process = try ServeProcess(
                ["-C", space.directory("bob").path, "drag", item, "--to", "bob", "--wait", "--timeout", "60"] + extra, serve: false)
            #expect(process.waitForLines(1))
            return process
        }
        let kept = try dragInBackground(ids[0], "--at", "0")
        defer { kept.stop(signal: SIGKILL) }
        let deleted = try dragInBackground(ids[1])
        defer { deleted.stop(signal: SIGKILL) }
        let keptID = try #require(dropLines(kept.standardOutput).first).transfer
        let deletedID = try #require(dropLines(deleted.standardOutput).first).transfer
        #expect(try space.waitUntil { try space.column("id", on: "carol", "bob") == [keptID, deletedID] })

        // Rule 10: carol deletes a placeholder while it loads: the transfer reports it cancelled.
        #expect(try space.gallery("carol", "delete", deletedID).status == 0)
        #expect(deleted.waitForExit(timeout: 30) == 1)
        #expect(deleted.standardOutput.contains("transfer \(deletedID) failed: cancelled"), "\(deleted.standardOutput)")
        // Rule 11: carol inserts and moves around the other one.
        let u1 = try space.gallery("carol", "add", "https://example.org/u1.jpg", "--to", "bob", "--at", "0").stdout
        let u2 = try space.gallery("carol", "add", "https://example.org/u2.jpg", "--to", "bob", "--at", "0").stdout
        let (first, second) = (u1.trimmingCharacters(in: .newlines), u2.trimmingCharacters(in: .newlines))
        #expect(try space.gallery("carol", "move", keptID, "--at", "1").status == 0)
        // Rule 13: the source is deleted while its bytes are not fetched yet.
        #expect(try space.gallery("carol", "delete", ids[0]).status == 0)
        #expect(try space.waitUntil { try space.column("id", on: "bob", "alice") == [ids[1], ids[2]] })

        // alice, back, still holds the bytes by hash: the placeholder commits where it stands now.
        try space.start("alice")
        #expect(kept.waitForExit(timeout: 60) == 0, "\(kept.standardOutput) \(kept.standardError)")
        for node in ["alice", "bob", "carol"] {
            #expect(try space.waitUntil {
                try space.column("id", on: node, "bob") == [second, keptID, first]
                    && space.column("state", on: node, "bob") == ["ready", "ready", "ready"]
            }, "\(node): \((try? space.items(on: node, "bob")) ?? nil ?? [])")
        }

        // Rule 13 when no peer holds the bytes any more (alice lost her blobs): the placeholder is
        // deleted as soon as every peer, alice included, said so; the drag reports why.
        #expect(space.stop("alice"))
        try FileManager.default.removeItem(at: space.directory("alice").appendingPathComponent("blobs"))
        try space.start("alice")
        #expect(try space.waitUntil { try space.gallery("bob", "peers").stdout.contains("alice") })
        let orphan = try space.gallery("bob", "drag", ids[2], "--to", "bob", "--wait", "--timeout", "60")
        #expect(orphan.status == 1)
        #expect(orphan.stdout.contains("failed: no peer holds the bytes"), "\(orphan.stdout)")
        #expect(try space.waitUntil { try space.column("id", on: "carol", "bob") == [second, keptID, first] })
        #expect(try space.column("id", on: "bob", "alice") == [ids[1], ids[2]])
    }

    @Test("rule 12: two nodes --move the same item at once: both keep a copy, the source is deleted once")
    func twoMovesOfOneItem() throws {
        let space = NodeSpace()
        defer { space.tearDown() }
        try space.start("alice")
        try space.start("bob", peers: ["alice"])
        try space.start("carol", peers: ["alice"])
        let id = try space.gallery("alice", "add", try space.image("a.png", bytes: 1_000_000)).stdout
            .trimmingCharacters(in: .newlines)
        for node in ["bob", "carol"] { #expect(try space.waitUntil { try space.column("id", on: node, "alice") == [id] }) }
        let drags = try ["bob", "carol"].map { node in
            try ServeProcess(["-C", space.directory(node).path, "drag", id, "--to", node, "--move", "--wait"], serve: false)
        }
        defer { for drag in drags { drag.stop(signal: SIGKILL) } }
        for drag in drags {
            #expect(drag.waitForExit(timeout: 60) == 0, "\(drag.standardOutput) \(drag.standardError)")
        }
        let hash = try space.column("hash", on: "bob", "bob")
        let carolHash = try space.column("hash", on: "carol", "carol")
        #expect(hash.count == 1 && hash == carolHash)
        for node in ["alice", "bob", "carol"] {
            #expect(try space.waitUntil {
                try space.column("id", on: node, "alice").isEmpty
                    && space.column("state", on: node, "bob") == ["ready"] && space.column("state", on: node, "carol") == ["ready"]
            }, "\(node)")
        }
    }
}
