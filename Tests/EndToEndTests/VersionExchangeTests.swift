import Foundation
import GalleryIO
import GalleryModel
import GalleryNode
import Testing

/// A lost last ops frame: since protocol version 3 a link cannot lose a frame silently (a dropped
/// sealed record fails the next record's nonce), so the loss closes the link and the redial's
/// catch-up fills it. (The periodic version exchange remains for losses inside a node.)
@Suite("Version exchange")
struct VersionExchangeTests {
    private static let secret = Array("version exchange".utf8)

    private func node(_ name: String, peers: [Endpoint] = [], exchange: Duration) -> SyncNode {
        var configuration = NodeConfiguration(name: name, secret: Self.secret, peers: peers, log: .silent)
        configuration.versionExchangeInterval = exchange
        // Neither tells the other where it listens: every redial goes through the relay.
        configuration.announce = []
        return SyncNode(configuration: configuration, replica: Replica(id: ReplicaID(deriving: name)))
    }

    @Test("A record lost on the link is detected at the next record; the redial fills the lost op")
    func lostLastFrameFilled() throws {
        let alpha = node("alpha", exchange: .seconds(1))
        let alphaEndpoint = try #require(try alpha.start())
        defer { alpha.stop() }
        let relay = try RecordRelay(to: alphaEndpoint)
        defer { relay.stop() }
        let beta = node("beta", peers: [relay.endpoint], exchange: .seconds(1))
        try beta.start()
        defer { beta.stop() }
        #expect(beta.waitForPeers(timeout: .seconds(10)) { $0.count == 1 && $0.first?.syncedUpTo != nil })
        #expect(alpha.waitForPeers(timeout: .seconds(10)) { $0.count == 1 && $0.first?.syncedUpTo != nil })

        // alpha's next ops frame to beta (the dialer) is dropped: nothing comes after it.
        relay.arm(.drop, .toDialer)
        try alpha.perform { try $0.createGallery("lost on the link, found again") }
        let deadline = Date().addingTimeInterval(10)
        while relay.applied.isEmpty && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        #expect(relay.applied.count == 1, "no record was dropped")

        // The next record (a heartbeat at the latest) fails to open: beta closes, redials, catches up.
        let filled = beta.wait(timeout: .seconds(10)) { $0.hasGallery("lost on the link, found again") }
        #expect(filled, "the lost op never arrived")
        let redialed = Date().addingTimeInterval(10)
        while relay.connectionCount < 2 && Date() < redialed { Thread.sleep(forTimeInterval: 0.01) }
        #expect(relay.connectionCount >= 2, "the loss was never detected: the link was not reconnected")
        #expect(beta.read { $0.version } == alpha.read { $0.version })
    }
}
