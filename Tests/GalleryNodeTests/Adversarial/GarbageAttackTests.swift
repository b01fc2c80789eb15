import Foundation
import GalleryWire
import Synchronization
import Testing

extension NodeSuites.AdversarialPeerTests {
    @Test("Random garbage and random frames are refused with the code protocol.md gives; A keeps serving B")
    func refusesGarbage() throws {
        let node = try AttackedNode()
        defer { node.stop() }
        let endpoint = node.endpoint, aID = node.aID
        var garbageCodes: [ErrorCode] = []
        // 1. Random garbage, chosen (deterministically) among seeds whose outcome is decided by the
        //    bytes alone; the expected code comes from a model of the protocol (`predict`).
        for seed in Self.garbageSeeds(count: 4, server: aID, after: []) {
            let bytes = Self.garbage(seed: seed)
            guard case .error(let code) = Self.predict(bytes, server: aID) else { continue }
            garbageCodes.append(code)
            try node.attack("garbage seed \(seed)") {
                let talk = try Self.converse("garbage seed \(seed)", endpoint) { peer in peer.send(bytes) }
                Self.expectRefused(talk, code: code)
            }
        }
        #expect(garbageCodes.count == 4)
        // Random frames (a plausible header, random type, flags and payload): the first seeds that
        // reach protocol_error and unknown_frame_type; then an ignorable unknown frame and an
        // `error` frame from the client, which A answers by closing without an error of its own.
        var randomFrameCases = Self.randomFrameSeeds(server: aID).map { seed, outcome in
            ("random frames seed \(seed) (\(outcome))", Self.randomFrames(seed: seed), outcome)
        }
        let clientError = Frame(rawType: 0x77, flags: Frame.ignorableFlag, payload: [1]).encoded
            + Message.error(code: .shuttingDown, message: "bye").frame.encoded
        randomFrameCases.append(("ignorable frame then error from the client", clientError, .close))
        #expect(Self.predict(clientError, server: aID) == .close)
        for (name, bytes, outcome) in randomFrameCases {
            try node.attack(name) {
                let talk = try Self.converse(name, endpoint) { peer in peer.send(bytes) }
                if case .error(let code) = outcome {
                    garbageCodes.append(code)
                    Self.expectRefused(talk, code: code)
                } else {
                    Self.expectRefused(talk, code: nil)
                }
            }
        }

        print("AdversarialPeer: garbage codes \(garbageCodes)")
        node.expectOnlyGoodPeer("refusesGarbage")
    }

    @Test("A header announcing a frame over the limit is refused from the header alone")
    func refusesOversizeHeaders() throws {
        let node = try AttackedNode()
        defer { node.stop() }
        let endpoint = node.endpoint
        // 2. A header announcing a 2 GiB frame: refused from the header alone.
        try node.attack("2 GiB header") {
            let talk = try Self.converse("2 GiB header", endpoint) { peer in
                peer.send([0x00, 0x00, 0x00, 0x80, FrameType.hello.rawValue, 0x00] + [UInt8](repeating: 0x47, count: 1_024))
            }
            Self.expectRefused(talk, code: .frameTooLarge)
        }
        try node.attack("4 GiB - 1 ops header") {
            let talk = try Self.converse("4 GiB - 1 ops header", endpoint) { peer in
                peer.send([0xFF, 0xFF, 0xFF, 0xFF, FrameType.ops.rawValue, 0x00])
            }
            Self.expectRefused(talk, code: .frameTooLarge)
        }
        node.expectOnlyGoodPeer("refusesOversizeHeaders")
    }
}
