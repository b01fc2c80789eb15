import Foundation
import Testing

/// A relay between two real `gallery serve` processes that tampers with sealed records after the
/// handshake (flips a bit, drops, duplicates, reorders, injects): every kind is detected by the
/// record layer, closes that link with a logged error, never changes what either node shows, and
/// the nodes redial through the relay and converge once it stops misbehaving.
@Suite("a man in the middle between two nodes", .serialized)
struct ManInTheMiddleTests {
    /// Alpha, and beta dialing alpha through a relay; returns once beta shows alpha's gallery.
    private func pair(_ space: NodeSpace) throws -> RecordRelay {
        // Neither announces where it listens, so every redial goes through the relay again.
        try space.start("alpha", options: ["--announce", "none"])
        let relay = try RecordRelay(to: try #require(space.address("alpha")))
        try space.start("beta", peers: [relay.endpoint.description], options: ["--announce", "none"])
        #expect(try space.waitUntil(timeout: 20) { try space.items(on: "beta", "alpha") != nil }, "beta never synced")
        return relay
    }

    /// What a node lists of a gallery: id, title and url of each item.
    private func listing(_ space: NodeSpace, on node: String, _ gallery: String) throws -> [String] {
        try (space.items(on: node, gallery) ?? []).map { "\($0["id"] ?? "") \($0["title"] ?? "") \($0["url"] ?? "")" }
    }

    /// Whether both nodes list both galleries identically, with `expected` items in each.
    private func converged(_ space: NodeSpace, expected: [String: Int]) throws -> Bool {
        for (gallery, count) in expected {
            let onAlpha = try listing(space, on: "alpha", gallery), onBeta = try listing(space, on: "beta", gallery)
            guard onAlpha.count == count, onAlpha == onBeta else { return false }
        }
        return true
    }

    @Test("Every kind of record tampering, either way, closes the link with a logged error; the nodes redial and converge on the right content")
    func tamperedRecords() throws {
        let space = NodeSpace()
        defer { space.tearDown() }
        let relay = try pair(space)
        defer { relay.stop() }
        var added: [String: [String]] = ["alpha": [], "beta": []]
        for (index, fault) in RecordRelay.Fault.allCases.enumerated() {
            for (sender, direction) in [("alpha", RecordRelay.Direction.toDialer), ("beta", .toTarget)] {
                let connections = relay.connectionCount, applied = relay.applied.count
                relay.arm(fault, direction)
                let title = "\(fault)-\(sender)-\(index)"
                #expect(try space.gallery(sender, "add", "https://example.org/\(title).png", "--title", title).status == 0)
                added[sender, default: []].append(title)
                let redialed = space.waitUntil(timeout: 20) { relay.applied.count > applied && relay.connectionCount > connections }
                #expect(redialed, "\(fault) \(direction): applied \(relay.applied), \(relay.connectionCount) connections")
                // Back to a live link before the next fault.
                _ = try space.waitUntil(timeout: 20) { try converged(space, expected: ["alpha": added["alpha"]!.count, "beta": added["beta"]!.count]) }
            }
        }
        let expected = ["alpha": added["alpha"]!.count, "beta": added["beta"]!.count]
        let same = try space.waitUntil(timeout: 30) { try converged(space, expected: expected) }
        let (onAlpha, onBeta) = (try listing(space, on: "alpha", "alpha"), try listing(space, on: "beta", "alpha"))
        #expect(same, "alpha \(onAlpha) beta \(onBeta)")
        // Exactly what was added, nothing made up on the way.
        for node in ["alpha", "beta"] {
            for gallery in ["alpha", "beta"] {
                let titles = try (space.items(on: node, gallery) ?? []).compactMap { $0["title"] as? String }
                #expect(Set(titles) == Set(added[gallery]!), "\(node) lists \(titles) in \(gallery)")
            }
        }
        let logs = (space.process("alpha")?.standardError ?? "") + (space.process("beta")?.standardError ?? "")
        let detections = logs.components(separatedBy: "sealed record").count - 1
        #expect(detections >= RecordRelay.Fault.allCases.count * 2, "\(detections) detections: \(logs.suffix(3_000))")
        #expect(logs.contains("corrupt_frame"), "\(logs.suffix(2_000))")
    }
}
