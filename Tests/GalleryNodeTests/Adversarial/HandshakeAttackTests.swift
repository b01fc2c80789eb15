import Foundation
import GalleryModel
import GalleryWire
import Synchronization
import Testing

extension NodeSuites.AdversarialPeerTests {
    @Test("A valid opening followed by garbage or a bad frame is refused after Noise message 2")
    func refusesGarbageAfterHello() throws {
        let node = try AttackedNode()
        defer { node.stop() }
        let endpoint = node.endpoint, aID = node.aID
        let hello = Self.hello(replica: ReplicaID(0xBAD0_0001))
        // 3. A valid opening (hello, message 1), then garbage (read message 2 first, then send the garbage).
        for seed in Self.garbageSeeds(count: 2, server: aID, after: hello) {
            let bytes = Self.garbage(seed: seed)
            guard case .error(let code) = Self.predict(hello + bytes, server: aID) else { continue }
            try node.attack("hello then garbage seed \(seed)") {
                let talk = try Self.converse("hello then garbage seed \(seed)", endpoint, expectWelcome: true) { peer in
                    peer.send(hello)
                    guard peer.nextFrame()?.knownType == .noiseHandshake else { return }
                    peer.send(bytes)
                }
                Self.expectRefused(talk, code: code, welcome: true)
            }
        }
        // Specific bad frames after a hello: reserved flag bits, an unknown type without the
        // ignorable flag, and an ignorable unknown frame (skipped) followed by a second hello.
        let afterHello: [(String, [UInt8], ErrorCode)] = [
            ("reserved flags", Frame(rawType: FrameType.noiseHandshake.rawValue, flags: 0x04, payload: Array(repeating: 1, count: 64)).encoded,
             .protocolError),
            ("unknown type", Frame(rawType: 0x7F, flags: 0, payload: [1, 2]).encoded, .unknownFrameType),
            ("ignorable frame then a second hello", Frame(rawType: 0x7E, flags: Frame.ignorableFlag, payload: [9]).encoded + hello,
             .protocolError),
            ("heartbeat before auth", Message.heartbeat.frame.encoded, .protocolError),
            ("sync_request before auth", Message.syncRequest(VersionVector()).frame.encoded, .protocolError),
            ("short Noise message 3", Frame(.noiseHandshake, payload: Array(repeating: 7, count: 31)).encoded, .protocolError),
            ("forged Noise message 3", Frame(.noiseHandshake, payload: Array(repeating: 7, count: 64)).encoded, .authFailed),
            ("sealed record before message 3", Frame(.record, payload: Array(repeating: 7, count: 40)).encoded, .protocolError),
        ]
        for (name, bytes, code) in afterHello {
            #expect(Self.predict(hello + bytes, server: aID) == .error(code), "model disagrees on \(name)")
            try node.attack("hello then \(name)") {
                let talk = try Self.converse("hello then \(name)", endpoint, expectWelcome: true) { peer in
                    peer.send(hello)
                    guard peer.nextFrame()?.knownType == .noiseHandshake else { return }
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
            ("Noise message before hello", Message.noiseHandshake(Array(repeating: 1, count: 32)).frame.encoded, .protocolError),
            ("identity before the handshake", Message.identity(PeerInfo(version: 4, replica: ReplicaID(9), maximumFrameSize: 1 << 20,
                                                                        name: "x")).frame.encoded, .protocolError),
            ("version 2 auth frame", Frame(rawType: 0x03, flags: 0, payload: Array(repeating: 1, count: 32)).encoded, .unsupportedVersion),
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

    @Test("Bad hellos (wrong magic, no common version, version 2, version 1) are refused")
    func refusesBadHellos() throws {
        let node = try AttackedNode()
        defer { node.stop() }
        let endpoint = node.endpoint
        let hello = Self.hello(replica: ReplicaID(0xBAD0_0001))
        // 5. Bad hellos: wrong magic, no common version, version 2 only, version 1 only.
        var wrongMagic = hello
        wrongMagic[6] = UInt8(ascii: "X")
        let badHellos: [(String, [UInt8], ErrorCode)] = [
            ("hello with a wrong magic", wrongMagic, .protocolError),
            ("hello with no common version (version 3, unsigned ops, and 5)", Message.hello(Hello(versions: [3, 5])).frame.encoded, .unsupportedVersion),
            // Versions 1 and 2 sent everything in the clear: refused, so that no one can downgrade a link.
            ("hello of a version 2 peer", Message.hello(Hello(
                versions: [2], replica: ReplicaID(0xBAD0_0003), nonce: Array(repeating: 5, count: 32),
                maximumFrameSize: 1 << 20, name: "old")).frame.encoded, .unsupportedVersion),
            ("hello of a version 1 peer", Message.hello(Hello(
                versions: [1], replica: ReplicaID(0xBAD0_0007), nonce: Array(repeating: 5, count: 32),
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
