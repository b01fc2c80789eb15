import Foundation
import GalleryIO
import GalleryWire
import Testing

/// Hostile links and hostile crowds against real `gallery serve` processes: descriptor
/// exhaustion, handshakes that drip, admission caps, and a man in the middle that damages or drops
/// frames between two nodes.
@Suite("hostile links and crowds", .serialized)
struct HostileLinkTests {
    /// An ignorable frame of an unknown type: skipped by the node, so it proves nothing but that
    /// the sender is not silent.
    static let ignorable = Frame(rawType: 0x7E, flags: Frame.ignorableFlag, payload: [0]).encoded

    /// Replaces the flood connections the node closed by new ones from the same addresses.
    private static func refill(_ flood: inout [RawSocket], to endpoint: Endpoint, addresses: [String]) {
        for index in flood.indices where flood[index].isClosedByPeer() {
            flood[index].close()
            if let fresh = RawSocket(to: endpoint, from: addresses[index % addresses.count]) { flood[index] = fresh }
        }
    }

    @Test("At its descriptor limit, flooded by unauthenticated connections, a node lets a peer and the CLI in, logs little, and lives")
    func descriptorExhaustion() throws {
        let space = NodeSpace()
        defer { space.tearDown() }
        try space.start("alpha", descriptorLimit: 64)
        let alpha = try #require(space.process("alpha"))
        let endpoint = try #require(space.address("alpha"))
        // 150 connections held open from 10 addresses (15 each: under the per-address cap, over
        // the descriptors left), kept at that count as the node sheds and drops them.
        let addresses = (0..<10).map { "127.0.0.\(20 + $0)" }
        var flood = (0..<150).compactMap { RawSocket(to: endpoint, from: addresses[$0 % addresses.count]) }
        #expect(flood.count == 150)
        let started = Date()
        let exhausted = space.waitUntil(timeout: 15) {
            Self.refill(&flood, to: endpoint, addresses: addresses)
            return alpha.standardError.contains("accept failed")
        }
        #expect(exhausted, "alpha never ran out of descriptors: \(alpha.standardError.suffix(2_000))")

        // A real peer gets in and syncs, and the command line gets answers, while the flood goes on.
        try space.start("beta", peers: ["alpha"])
        let synced = try space.waitUntil(timeout: 30) {
            Self.refill(&flood, to: endpoint, addresses: addresses)
            return try space.items(on: "beta", "alpha") != nil
        }
        #expect(synced, "beta never synced with alpha: \(alpha.standardError.suffix(2_000))")
        let answered = try space.waitUntil(timeout: 30) {
            Self.refill(&flood, to: endpoint, addresses: addresses)
            return try space.gallery("alpha", "add", "https://example.org/during-the-flood.png").status == 0
        }
        #expect(answered, "the CLI never got in")
        #expect(try space.waitUntil(timeout: 20) { try space.column("url", on: "beta", "alpha").contains("https://example.org/during-the-flood.png") })

        // Bounded logging: a few lines per second of flood (it was megabytes), each kind summarised.
        let seconds = max(1, Date().timeIntervalSince(started))
        let lines = alpha.standardError.split(separator: "\n")
        #expect(Double(lines.count) < 12 * seconds + 20, "\(lines.count) lines in \(seconds) s")
        // The lines held back are summarised once the throttle's interval (1 s) has passed: wait for
        // it, the flood going on (a node on event loops lets beta and the CLI in well within it).
        #expect(space.waitUntil(timeout: 10) {
            Self.refill(&flood, to: endpoint, addresses: addresses)
            return alpha.standardError.contains("lines like this in the last")
        }, "no summary of held-back lines: \(alpha.standardError.suffix(2_000))")
        for socket in flood { socket.close() }
        #expect(alpha.isRunning)
        #expect(space.stop("alpha"), "alpha did not stop cleanly: \(alpha.standardError.suffix(2_000))")
    }

    @Test("A client that sends an ignorable frame every second is dropped at the handshake deadline")
    func slowDripHandshake() throws {
        let space = NodeSpace()
        defer { space.tearDown() }
        try space.start("alpha")
        let endpoint = try #require(space.address("alpha"))
        let drip = try #require(RawSocket(to: endpoint))
        let started = Date()
        var closed = false
        while !closed && Date().timeIntervalSince(started) < 15 {
            drip.send(Self.ignorable)
            closed = drip.isClosedByPeer(within: 1)
        }
        let elapsed = Date().timeIntervalSince(started)
        #expect(closed, "still open after \(elapsed) s")
        #expect(elapsed > 4 && elapsed < 8, "closed after \(elapsed) s (deadline 5 s)")
        var decoder = FrameDecoder()
        decoder.append(drip.received)
        let frame = try #require(try decoder.next())
        #expect(try Message(frame: frame) == .error(code: .timeout, message: "handshake not completed within 5000 ms"))
    }

    @Test("Unauthenticated connections are capped per address and in total; refused ones are closed at once")
    func admissionCaps() throws {
        let space = NodeSpace()
        defer { space.tearDown() }
        try space.start("alpha")
        let alpha = try #require(space.process("alpha"))
        let endpoint = try #require(space.address("alpha"))
        // 20 from one address: 16 are held (until the 5 s deadline), 4 are closed at once.
        let crowd = (0..<20).compactMap { _ in RawSocket(to: endpoint, from: "127.0.0.40") }
        #expect(crowd.count == 20)
        var refused = 0
        _ = space.waitUntil(timeout: 2) {
            refused = crowd.filter { $0.isClosedByPeer() }.count
            return refused >= 4
        }
        #expect(refused == 4, "\(refused) of 20 refused")
        #expect(crowd.allSatisfy { $0.received.isEmpty }, "a refused connection was sent something")
        // 7 more addresses x 16 fill the total (128). One more, from a fresh address, gets in: the
        // oldest connection of the most crowded address makes room (a flood from a few addresses
        // cannot lock a peer out), and that address's next one is refused (its group is full).
        let more = (0..<112).compactMap { RawSocket(to: endpoint, from: "127.0.0.\(41 + $0 / 16)") }
        #expect(more.count == 112)
        let extra = try #require(RawSocket(to: endpoint, from: "127.0.0.60"))
        #expect(!extra.isClosedByPeer(within: 1), "the newcomer from a quiet address was refused")
        _ = space.waitUntil(timeout: 2) { (crowd + more).filter { $0.isClosedByPeer() }.count >= 5 }
        refused = (crowd + more).filter { $0.isClosedByPeer() }.count
        #expect(refused == 5, "\(refused) closed among the first 132: the 4 refused and 1 evicted")
        #expect(crowd[0].isClosedByPeer(), "the oldest connection of the most crowded addresses was not the one evicted")
        let crowded = try #require(RawSocket(to: endpoint, from: "127.0.0.41"))
        #expect(crowded.isClosedByPeer(within: 2), "a crowded address got past the full table")
        #expect(alpha.standardError.contains("refused a connection from"))
        // Once the crowd is gone, the node takes connections again.
        for socket in crowd + more + [extra, crowded] { socket.close() }
        #expect(try space.waitUntil(timeout: 15) { try space.gallery("alpha", "status").status == 0 })
    }
}
