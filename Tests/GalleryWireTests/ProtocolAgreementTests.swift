import GalleryCrypto
import GalleryModel
@testable import GalleryWire
import Testing

/// Where an independent client found the node disagreeing with protocol.md: the codes now agree.
@Suite("The node's codes as protocol.md says")
struct ProtocolAgreementTests {
    static func settings(_ name: String) -> HandshakeSettings {
        HandshakeSettings(secret: Array("agreement secret".utf8), staticKey: X25519.PrivateKey(), replica: ReplicaID(7), name: name)
    }

    @Test("A Noise message of another length than 48, 96 or 64 bytes is protocol_error, even with a payload that would open")
    func noiseMessageLengths() throws {
        var client = ClientHandshake(settings: Self.settings("alice"))
        let opening = try client.start()
        guard case .noiseHandshake(let first) = opening[1] else {
            Issue.record("no message 1")
            return
        }
        #expect(first.count == 48)
        var server = ServerHandshake(settings: Self.settings("bob"))
        _ = try server.receive(opening[0])
        SecureHandshakeTests.expectFailure(.protocolError, "60-byte message 1") {
            try server.receive(.noiseHandshake(first + [UInt8](repeating: 0, count: 12)))
        }
        var again = ServerHandshake(settings: Self.settings("bob"))
        _ = try again.receive(opening[0])
        let second = try again.receive(opening[1])
        guard case .send(.noiseHandshake(let reply)) = second else {
            Issue.record("no message 2: \(second)")
            return
        }
        #expect(reply.count == 96)
        SecureHandshakeTests.expectFailure(.protocolError, "95-byte message 2") {
            try client.receive(.noiseHandshake(Array(reply.dropLast())))
        }
    }

    @Test("An insert of 0 items and a reference to counter 0 (an origin) are rejected_op, not protocol_error")
    func boundsAreRejectedOps() throws {
        let replica = ReplicaID(9)
        let empty = Message.ops([Op(id: OpID(counter: 1, replica: replica), previous: 0,
                                    action: .insert(gallery: "g", after: nil, before: nil, items: []))]).frame
        #expect(throws: WireError.self) { try Message(frame: empty) }
        #expect(Self.code(of: empty) == .rejectedOp)
        // An origin naming counter 0, written by hand (the model never makes one).
        let item = Op(id: OpID(counter: 1, replica: replica), previous: 0, action: .insert(
            gallery: "g", after: nil, before: nil, items: [ItemDraft(fields: [.origin: .id(OpID(counter: 5, replica: replica))])]))
        var payload = Message.ops([item]).frame.payload
        // The origin's reference is the last bytes: 0x04, then 0x01 delta... written as 0x02 counter replica instead.
        let reference = [UInt8(0x04), 0x02, 0x00] + withUnsafeBytes(of: replica.rawValue.littleEndian) { Array($0) }
        let tail = payload.lastIndex(of: 0x04)!
        payload = Array(payload[..<tail]) + reference
        #expect(Self.code(of: Frame(.ops, payload: payload)) == .rejectedOp)
    }

    /// The code a receiver answers a frame with: `rejected_op` for ops outside the bounds, else
    /// `protocol_error` (as the node's connection maps `WireError`).
    static func code(of frame: Frame) -> ErrorCode? {
        do {
            _ = try Message(frame: frame)
            return nil
        } catch .rejectedOp {
            return .rejectedOp
        } catch {
            return .protocolError
        }
    }
}
