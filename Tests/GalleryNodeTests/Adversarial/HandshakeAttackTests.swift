import Foundation
import GalleryIO
import GalleryModel
import GalleryNode
import GallerySimulation
import GalleryWire
import Synchronization
import Testing

extension NodeSuites.AdversarialPeerTests {
    @Test("A valid hello followed by garbage or a bad frame is refused after the welcome")
    func refusesGarbageAfterHello() throws {
        let node = try AttackedNode()
        defer { node.stop() }
        let endpoint = node.endpoint, aID = node.aID
        let hello = Self.hello(replica: ReplicaID(0xBAD0_0001))
        // 3. A valid hello, then garbage (read the welcome first, then send the garbage).
        for seed in Self.garbageSeeds(count: 2, server: aID, after: hello) {
            let bytes = Self.garbage(seed: seed)
            guard case .error(let code) = Self.predict(hello + bytes, server: aID) else { continue }
            try node.attack("hello then garbage seed \(seed)") {
                let talk = try Self.converse("hello then garbage seed \(seed)", endpoint, expectWelcome: true) { peer in
                    peer.send(hello)
                    guard peer.nextFrame()?.knownType == .welcome else { return }
                    peer.send(bytes)
                }
                Self.expectRefused(talk, code: code, welcome: true)
            }
        }
        // Specific bad frames after a hello: reserved flag bits, an unknown type without the
        // ignorable flag, and an ignorable unknown frame (skipped) followed by a second hello.
        let afterHello: [(String, [UInt8], ErrorCode)] = [
            ("reserved flags", Frame(rawType: FrameType.auth.rawValue, flags: 0x04, payload: Array(repeating: 1, count: 32)).encoded,
             .protocolError),
            ("unknown type", Frame(rawType: 0x7F, flags: 0, payload: [1, 2]).encoded, .unknownFrameType),
            ("ignorable frame then a second hello", Frame(rawType: 0x7E, flags: Frame.ignorableFlag, payload: [9]).encoded + hello,
             .protocolError),
            ("heartbeat before auth", Message.heartbeat.frame.encoded, .protocolError),
            ("sync_request before auth", Message.syncRequest(VersionVector()).frame.encoded, .protocolError),
            ("short auth proof", Frame(.auth, payload: Array(repeating: 7, count: 31)).encoded, .protocolError),
        ]
        for (name, bytes, code) in afterHello {
            #expect(Self.predict(hello + bytes, server: aID) == .error(code), "model disagrees on \(name)")
            try node.attack("hello then \(name)") {
                let talk = try Self.converse("hello then \(name)", endpoint, expectWelcome: true) { peer in
                    peer.send(hello)
                    guard peer.nextFrame()?.knownType == .welcome else { return }
                    peer.send(bytes)
                }
                Self.expectRefused(talk, code: code, welcome: true)
            }
        }
        node.expectOnlyGoodPeer("refusesGarbageAfterHello")
    }

    @Test("Frames before any handshake are refused with protocol_error")
    func refusesFramesBeforeHandshake() throws {
        let node = try AttackedNode()
        defer { node.stop() }
        let endpoint = node.endpoint
        // 4. ops (and other frames) before any handshake.
        let goldenOps = Message.ops([
            Op(id: OpID(counter: 1, replica: ReplicaID(0xBAD0_0002)), previous: 0, action: .createGallery(name: "intruder")),
        ]).frame.encoded
        let beforeHandshake: [(String, [UInt8], ErrorCode)] = [
            ("ops before the handshake", goldenOps, .protocolError),
            ("auth before hello", Message.auth(proof: Array(repeating: 1, count: 32)).frame.encoded, .protocolError),
            ("authOK to a server", Message.authOK(proof: Array(repeating: 1, count: 32)).frame.encoded, .protocolError),
            ("caught_up before the handshake", Message.caughtUp(VersionVector([ReplicaID(3): 4])).frame.encoded, .protocolError),
        ]
        for (name, bytes, code) in beforeHandshake {
            try node.attack(name) {
                let talk = try Self.converse(name, endpoint) { peer in peer.send(bytes) }
                Self.expectRefused(talk, code: code)
            }
        }
        node.expectOnlyGoodPeer("refusesFramesBeforeHandshake")
    }

    @Test("Bad hellos (wrong magic, no common version, A's own replica ID, version 1) are refused")
    func refusesBadHellos() throws {
        let node = try AttackedNode()
        defer { node.stop() }
        let endpoint = node.endpoint, aID = node.aID
        let hello = Self.hello(replica: ReplicaID(0xBAD0_0001))
        // 5. Bad hellos: wrong magic, no common version, A's own replica ID, version 1 only.
        var wrongMagic = hello
        wrongMagic[6] = UInt8(ascii: "X")
        let badHellos: [(String, [UInt8], ErrorCode)] = [
            ("hello with a wrong magic", wrongMagic, .protocolError),
            ("hello with no common version", Message.hello(Hello(
                versions: [3, 4], replica: ReplicaID(0xBAD0_0003), nonce: HandshakeSettings.makeNonce(),
                maximumFrameSize: 1 << 20, name: "future")).frame.encoded, .unsupportedVersion),
            ("hello with A's own replica ID", Self.hello(replica: aID), .duplicateConnection),
            // Version 1 had no frame checksums: refused, so that no one can downgrade a link.
            ("hello of a version 1 peer", Message.hello(Hello(
                versions: [1], replica: ReplicaID(0xBAD0_0007), nonce: HandshakeSettings.makeNonce(),
                maximumFrameSize: 1 << 20, name: "old")).frame.encoded, .unsupportedVersion),
        ]
        for (name, bytes, code) in badHellos {
            try node.attack(name) {
                let talk = try Self.converse(name, endpoint) { peer in peer.send(bytes) }
                Self.expectRefused(talk, code: code)
            }
        }
        node.expectOnlyGoodPeer("refusesBadHellos")
    }
}
