import Foundation
import GalleryIO
import GalleryModel
import GalleryNode
import GallerySimulation
import GalleryWire
import Synchronization
import Testing

extension NodeSuites.AdversarialPeerTests {
    @Test("A handshake with the wrong secret is refused with auth_failed")
    func refusesWrongSecret() throws {
        let node = try AttackedNode()
        defer { node.stop() }
        let endpoint = node.endpoint
        // 6. A complete handshake with the wrong secret.
        try node.attack("wrong secret") {
            let settings = HandshakeSettings(secret: Array("not the secret".utf8), replica: ReplicaID(0xBAD0_0004), name: "mallory")
            var handshake = ClientHandshake(settings: settings)
            let talk = try Self.converse("wrong secret", endpoint, expectWelcome: true) { peer in
                peer.send(handshake.hello)
                guard let frame = peer.nextFrame(), let welcome = try? Message(frame: frame),
                      case .send(let auth)? = try? handshake.receive(welcome) else { return }
                peer.send(auth)
            }
            Self.expectRefused(talk, code: .authFailed, welcome: true)
        }
        node.expectOnlyGoodPeer("refusesWrongSecret")
    }

    @Test("A replayed auth proof is refused with auth_failed")
    func refusesReplayedProof() throws {
        let node = try AttackedNode()
        defer { node.stop() }
        let endpoint = node.endpoint
        // 7. A replayed auth proof, recorded from an earlier successful handshake.
        let recorderSettings = HandshakeSettings(secret: TestCluster.secret, replica: ReplicaID(0xBAD0_0005), name: "recorder")
        var recorder = ClientHandshake(settings: recorderSettings)
        let recordedHello = recorder.hello.frame.encoded
        var recordedAuth: [UInt8]?
        let honest = try Self.converse("recorder", endpoint, closeAfter: true) { peer in
            peer.send(recordedHello)
            guard let frame = peer.nextFrame(), let welcome = try? Message(frame: frame),
                  case .send(let auth)? = try? recorder.receive(welcome) else { return }
            recordedAuth = auth.frame.encoded
            peer.send(auth)
            guard let okFrame = peer.nextFrame(), let ok = try? Message(frame: okFrame),
                  case .done? = try? recorder.receive(ok) else { return }
        }
        #expect(honest.frames.map(\.knownType).prefix(2) == [.welcome, .authOK], "the honest handshake failed: \(honest)")
        let replayedAuth = try #require(recordedAuth)
        try node.attack("replayed auth proof") {
            let talk = try Self.converse("replayed auth proof", endpoint, expectWelcome: true) { peer in
                peer.send(recordedHello)
                guard peer.nextFrame()?.knownType == .welcome else { return }
                peer.send(replayedAuth)
            }
            Self.expectRefused(talk, code: .authFailed, welcome: true)
        }
        node.expectOnlyGoodPeer("refusesReplayedProof")
    }
}
