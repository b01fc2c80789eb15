import Foundation
import GalleryIO
import GalleryModel
import GalleryNode
import GalleryWire
import Testing

/// Anti-entropy: the last ops frame of a burst, lost on a live link, leaves no later op waiting for
/// it, so no gap shows; the periodic version exchange fills it without a reconnect.
@Suite("Version exchange")
struct VersionExchangeTests {
    private static let secret = Array("version exchange".utf8)

    private func node(_ name: String, peers: [Endpoint] = [], exchange: Duration) -> SyncNode {
        var configuration = NodeConfiguration(name: name, secret: Self.secret, peers: peers, log: .silent)
        configuration.versionExchangeInterval = exchange
        return SyncNode(configuration: configuration, replica: Replica(id: ReplicaID(deriving: name)))
    }

    @Test("A lost last ops frame is filled by the periodic version exchange, on the same connection")
    func lostLastFrameFilled() throws {
        let alpha = node("alpha", exchange: .seconds(1))
        let alphaEndpoint = try #require(try alpha.start())
        defer { alpha.stop() }
        let relay = try FrameRelay(to: alphaEndpoint)
        defer { relay.stop() }
        let beta = node("beta", peers: [relay.endpoint], exchange: .seconds(1))
        try beta.start()
        defer { beta.stop() }
        #expect(beta.waitForPeers(timeout: .seconds(10)) { $0.count == 1 && $0.first?.syncedUpTo != nil })
        #expect(alpha.waitForPeers(timeout: .seconds(10)) { $0.count == 1 && $0.first?.syncedUpTo != nil })

        // alpha's next ops frame to beta (the dialer) is dropped: nothing comes after it.
        relay.arm(.drop(.ops), .toDialer)
        try alpha.perform { try $0.createGallery("lost") }
        let deadline = Date().addingTimeInterval(10)
        while relay.applied.isEmpty && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        #expect(relay.applied.count == 1, "no ops frame was dropped")
        #expect(!beta.read { $0.hasGallery("lost") })
        #expect(beta.read { $0.bufferedCount } == 0, "no later op shows the gap")

        // Within a few exchange intervals beta asks again and gets it, over the same link.
        let filled = beta.wait(timeout: .seconds(5)) { $0.hasGallery("lost") }
        #expect(filled, "the lost op never arrived")
        #expect(relay.connectionCount == 1, "the link was reconnected")
        #expect(beta.read { $0.version } == alpha.read { $0.version })
    }
}
