import Foundation
import GalleryNode
import GalleryWire
import Testing

/// A relay between two real `gallery serve` processes that damages or drops one frame after the
/// handshake: the damage is caught by the frame checksum (close, redial, nothing wrong applied),
/// and a lost frame is detected as a gap and asked for again within seconds, on the same link.
@Suite("a man in the middle between two nodes", .serialized)
struct ManInTheMiddleTests {
    /// Alpha, and beta dialing alpha through a relay; returns once beta shows alpha's gallery.
    private func pair(_ space: NodeSpace) throws -> FrameRelay {
        try space.start("alpha")
        let relay = try FrameRelay(to: try #require(space.address("alpha")))
        try space.start("beta", peers: [relay.endpoint.description])
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

    @Test("A bit flipped in an ops frame, either way, closes that link cleanly; the nodes redial and converge on the right content")
    func flippedBit() throws {
        let space = NodeSpace()
        defer { space.tearDown() }
        let relay = try pair(space)
        defer { relay.stop() }
        relay.arm(.flipBit(.ops), .toDialer)
        #expect(try space.gallery("alpha", "add", "https://example.org/one.png", "--title", "one").status == 0)
        #expect(space.waitUntil(timeout: 20) { relay.applied.count == 1 && relay.connectionCount >= 2 }, "no flip and redial")
        relay.arm(.flipBit(.ops), .toTarget)
        #expect(try space.gallery("beta", "add", "https://example.org/two.png", "--title", "two").status == 0)
        #expect(space.waitUntil(timeout: 20) { relay.applied.count == 2 && relay.connectionCount >= 3 }, "no flip and redial")
        let same = try space.waitUntil(timeout: 20) { try converged(space, expected: ["alpha": 1, "beta": 1]) }
        let (onAlpha, onBeta) = (try listing(space, on: "alpha", "alpha"), try listing(space, on: "beta", "alpha"))
        #expect(same, "alpha \(onAlpha) beta \(onBeta)")
        #expect(try listing(space, on: "beta", "alpha").first?.hasSuffix(" one https://example.org/one.png") == true)
        #expect(try listing(space, on: "alpha", "beta").first?.hasSuffix(" two https://example.org/two.png") == true)
        let logs = (space.process("alpha")?.standardError ?? "") + (space.process("beta")?.standardError ?? "")
        #expect(logs.contains("corrupt_frame"), "\(logs.suffix(2_000))")
    }

    @Test("An ops frame lost on a live link is asked for again within seconds, without a reconnect")
    func droppedOpsFrame() throws {
        let space = NodeSpace()
        defer { space.tearDown() }
        let relay = try pair(space)
        defer { relay.stop() }
        relay.arm(.drop(.ops), .toDialer)
        #expect(try space.gallery("alpha", "add", "https://example.org/lost.png", "--title", "lost").status == 0)
        #expect(space.waitUntil(timeout: 10) { relay.applied.count == 1 })
        // A later op waits at beta for the lost one, which beta then asks for.
        let started = Date()
        #expect(try space.gallery("alpha", "add", "https://example.org/later.png", "--title", "later").status == 0)
        let filled = try space.waitUntil(timeout: 10) { try converged(space, expected: ["alpha": 2]) }
        let onBeta = try listing(space, on: "beta", "alpha")
        #expect(filled, "beta \(onBeta) \(space.process("beta")?.standardError.suffix(2_000) ?? "")")
        #expect(Date().timeIntervalSince(started) < 8)
        #expect(relay.connectionCount == 1, "the link was reconnected")
    }

    @Test("A chunk lost on a live link is asked for again: the transfer ends within seconds, not at its deadline")
    func droppedChunk() throws {
        let space = NodeSpace()
        defer { space.tearDown() }
        let relay = try pair(space)
        defer { relay.stop() }
        let image = try space.image("large.png", width: 640, height: 480, bytes: 1 << 20)
        #expect(try space.gallery("alpha", "add", image).status == 0)
        #expect(try space.waitUntil(timeout: 20) { try (space.items(on: "beta", "alpha") ?? []).count == 1 })
        relay.arm(.drop(.chunk), .toDialer)
        let started = Date()
        let drag = try space.gallery("beta", "drag", "alpha:0", "--to", "beta", "--wait", "--timeout", "60")
        let elapsed = Date().timeIntervalSince(started)
        #expect(drag.status == 0, "\(drag.stdout) \(drag.stderr)")
        #expect(drag.stdout.contains("committed"), "\(drag.stdout)")
        #expect(relay.applied.count == 1, "no chunk was dropped")
        #expect(elapsed < 15, "the transfer took \(elapsed) s")
        #expect(relay.connectionCount == 1, "the link was reconnected")
    }
}
