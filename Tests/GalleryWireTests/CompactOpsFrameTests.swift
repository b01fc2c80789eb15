import GalleryModel
@testable import GalleryWire
import Testing

/// `features` and `ops_compact` as frames (protocol.md, section 7.2): the flag, the priority, the
/// tables carried from frame to frame, and the errors a connection closes with.
@Suite("Compact ops frames")
struct CompactOpsFrameTests {
    static let alice = ReplicaID(0x0102_0304_0506_0708)

    static func retitle(_ counter: UInt64, _ title: FieldValue) -> Op {
        Op(id: OpID(counter: counter, replica: alice), previous: counter - 1,
           action: .update(item: OpID(counter: 1, replica: ReplicaID(0xB0B)), field: .title, value: title))
    }

    @Test("features is ignorable and keeps bits it does not know")
    func features() throws {
        let frame = Message.features(Features(rawValue: 0b101)).frame
        #expect(frame.knownType == .features && frame.flags == Frame.ignorableFlag && frame.payload == [0x05])
        let decoded = try Message(frame: frame)
        #expect(decoded == .features(Features(rawValue: 0b101)))
        if case .features(let features) = decoded { #expect(features.contains(.compactOps)) }
        #expect(throws: WireError.self) { try Message(frame: Frame(.features, flags: Frame.ignorableFlag, payload: [0x80])) }
    }

    @Test("ops_compact goes in the ops queue, and reads with the tables of the frames before it")
    func tablesAcrossFrames() throws {
        #expect(FrameType.opsCompact.priority == .ops && FrameType.features.priority == .control)
        var sender = CompactOpTables(), receiver = CompactOpTables()
        let frames = (1...3).map { Message.opsCompact([Self.retitle($0, .text("t\($0)"))]).frame(compactTables: &sender) }
        #expect(frames[1].payload.count == frames[0].payload.count - 8 - 8, "both replica IDs now by index, not 0 and 8 bytes")
        for (index, frame) in frames.enumerated() {
            #expect(try Message(frame: frame, compactTables: &receiver) == .opsCompact([Self.retitle(UInt64(index + 1), .text("t\(index + 1)"))]))
        }
    }

    @Test("A malformed ops_compact frame is malformed, an op out of bounds is a rejected op")
    func errors() throws {
        var sender = CompactOpTables()
        _ = Message.opsCompact([Self.retitle(1, .text("a"))]).frame(compactTables: &sender)
        let dangling = Message.opsCompact([Self.retitle(2, .text("b"))]).frame(compactTables: &sender)
        #expect(throws: WireError.malformed("opsCompact: invalid replica index 1 past a table of 0")) {
            try Message(frame: dangling)
        }
        var trailing = Message.opsCompact([Self.retitle(1, .text("a"))]).frame
        trailing.payload.append(0)
        #expect(throws: WireError.malformed("opsCompact: 1 bytes after the last value")) { try Message(frame: trailing) }
        let wrongType = Message.opsCompact([Self.retitle(1, .number(1))]).frame
        let error = #expect(throws: WireError.self) { try Message(frame: wrongType) }
        guard case .rejectedOp? = error else {
            Issue.record("not a rejected op: \(String(describing: error))")
            return
        }
    }
}
