import Foundation
import GalleryModel
import GalleryWire
import Synchronization
import Testing

extension NodeSuites.AdversarialPeerTests {
    @Test("A handshake with the wrong secret is refused with auth_failed after message 3; nothing sealed is sent")
    func refusesWrongSecret() throws {
        let node = try AttackedNode()
        defer { node.stop() }
        let endpoint = node.endpoint
        // 6. A complete handshake with the wrong secret.
        try node.attack("wrong secret") {
            let settings = Self.settings("mallory", replica: ReplicaID(0xBAD0_0004), secret: Array("not the secret".utf8))
            let talk = try Self.converse("wrong secret", endpoint, expectWelcome: true) { peer in
                peer.sendThirdMessage(settings)
            }
            Self.expectRefused(talk, code: .authFailed, welcome: true)
        }
        node.expectOnlyGoodPeer("refusesWrongSecret")
    }

    @Test("A replayed Noise message 3 is refused with auth_failed")
    func refusesReplayedProof() throws {
        let node = try AttackedNode()
        defer { node.stop() }
        let endpoint = node.endpoint
        // 7. A message 3 recorded from an earlier successful handshake, replayed after a new opening.
        let recorderSettings = Self.settings("recorder", replica: ReplicaID(0xBAD0_0005))
        var recorder = ClientHandshake(settings: recorderSettings)
        let opening = try recorder.start()
        var recordedThird: [UInt8]?
        let honest = try Self.converse("recorder", endpoint, closeAfter: true) { peer in
            for message in opening { peer.send(message) }
            guard let frame = peer.nextFrame(), let second = try? Message(frame: frame),
                  case .finish(let third, _)? = try? recorder.receive(second) else { return }
            recordedThird = third.frame.encoded
            peer.send(third)
            _ = peer.nextFrame()
        }
        #expect(honest.frames.map(\.knownType).prefix(2) == [.noiseHandshake, .record], "the honest handshake failed: \(honest)")
        let replayedThird = try #require(recordedThird)
        try node.attack("replayed message 3") {
            let talk = try Self.converse("replayed message 3", endpoint, expectWelcome: true) { peer in
                peer.send(opening.flatMap(\.frame.encoded))
                guard peer.nextFrame()?.knownType == .noiseHandshake else { return }
                peer.send(replayedThird)
            }
            Self.expectRefused(talk, code: .authFailed, welcome: true)
        }
        node.expectOnlyGoodPeer("refusesReplayedProof")
    }
}
