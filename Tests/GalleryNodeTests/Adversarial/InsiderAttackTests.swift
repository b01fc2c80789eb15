import Foundation
import GalleryModel
import GalleryWire
import Synchronization
import Testing

extension NodeSuites.AdversarialPeerTests {
    @Test("An authenticated peer that misbehaves (oversize header, second hello, rejected op) is closed; nothing is applied")
    func closesMisbehavingInsider() throws {
        let node = try AttackedNode()
        defer { node.stop() }
        let a = node.a, endpoint = node.endpoint
        // 8. Authenticated but misbehaving: a 2 GiB header, a second hello, an op no correct
        //    replica produces (a number as a title). Each is closed; nothing is applied.
        let existing = try a.read { try $0.item(at: 0, in: "g").id }
        let insider = ReplicaID(0xBAD0_0006)
        // `ops_compact` whose replica index points past the receiver's table (the frame that
        // filled the sender's was never sent), cut short, and with an op out of bounds.
        let retitle = Op(id: OpID(counter: 1, replica: insider), previous: 0,
                         action: .update(item: existing, field: .title, value: .text("x")))
        var tables = CompactOpTables()
        _ = Message.opsCompact([retitle]).frame(compactTables: &tables)
        let dangling = Message.opsCompact([retitle]).frame(compactTables: &tables)
        var cut = Message.opsCompact([retitle]).frame
        cut.payload.removeLast()
        let insiderMessages: [(String, [UInt8], ErrorCode)] = [
            ("authenticated 2 GiB header", [0x00, 0x00, 0x00, 0x80, FrameType.ops.rawValue, 0x00], .frameTooLarge),
            ("authenticated second hello", Message.hello(Hello(versions: HandshakeSettings.supportedVersions)).frame.encoded, .protocolError),
            ("authenticated second identity", Message.identity(PeerInfo(version: 4, replica: insider, maximumFrameSize: 1 << 20,
                                                                       name: "again")).frame.encoded, .protocolError),
            ("authenticated rejected op", Message.ops([
                Op(id: OpID(counter: 1, replica: insider), previous: 0, action: .update(item: existing, field: .title, value: .number(1))),
            ]).frame.encoded, .rejectedOp),
            ("authenticated ops_compact index past the table", dangling.encoded, .protocolError),
            ("authenticated ops_compact cut short", cut.encoded, .protocolError),
            ("authenticated ops_compact rejected op", Message.opsCompact([
                Op(id: OpID(counter: 1, replica: insider), previous: 0, action: .update(item: existing, field: .title, value: .number(1))),
            ]).frame.encoded, .rejectedOp),
        ]
        for (index, (name, bytes, code)) in insiderMessages.enumerated() {
            try node.attack(name) {
                // A replica ID per connection: A may still be closing the previous one.
                let replica = ReplicaID(insider.rawValue + UInt64(index))
                let settings = Self.settings("insider", replica: replica)
                let talk = try Self.converse(name, endpoint) { peer in
                    guard peer.authenticate(settings) else { return }
                    peer.sendFrames(bytes)
                }
                #expect(talk.end.isClosedByPeer, "\(name): \(talk.end)")
                let types = talk.frames.map(\.knownType)
                #expect(types.prefix(2) == [.noiseHandshake, .identity], "\(name): \(types)")
                #expect(Self.errorCode(talk.frames.last) == code, "\(name): \(Self.describe(talk.frames))")
            }
        }
        node.expectOnlyGoodPeer("closesMisbehavingInsider")
    }
}
