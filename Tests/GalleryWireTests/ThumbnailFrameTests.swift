@testable import GalleryWire
import Testing

/// The `thumbnail_fetch` and `thumbnail` frames (protocol.md, section 8.1): their layout, their
/// ignorable flag, and the bounds a decoder enforces.
@Suite("thumbnail frames")
struct ThumbnailFrameTests {
    let name = ThumbnailName(hash: (0..<32).map { UInt8($0) }, size: 1280)

    @Test("thumbnail_fetch and thumbnail survive a round trip, ignorable, with the documented bytes")
    func roundTrip() throws {
        let fetch = Message.thumbnailFetch(name).frame
        #expect(fetch.type == 0x24)
        #expect(fetch.flags == Frame.ignorableFlag)
        // hash:32 then size:varint (1280 = 0x80 0x0A).
        #expect(fetch.payload == name.hash + [0x80, 0x0A])
        #expect(try Message(frame: fetch) == .thumbnailFetch(name))

        let answer = Message.thumbnail(name, data: [0xFF, 0xD8, 0xFF, 0xD9]).frame
        #expect(answer.type == 0x25)
        #expect(answer.flags == Frame.ignorableFlag)
        #expect(answer.payload == name.hash + [0x80, 0x0A, 0xFF, 0xD8, 0xFF, 0xD9])
        #expect(try Message(frame: answer) == .thumbnail(name, data: [0xFF, 0xD8, 0xFF, 0xD9]))
        #expect(try Message(frame: Message.thumbnail(name, data: []).frame) == .thumbnail(name, data: []))
        #expect(FrameType.thumbnail.priority == .bulk)
        #expect(FrameType.thumbnailFetch.priority == .control)
    }

    @Test("a short hash, a size of 0 or over 65,535, bytes after a fetch: malformed")
    func bounds() {
        for payload in [Array(name.hash.prefix(31)), name.hash + [0], name.hash + [0x80, 0x80, 0x04], name.hash + [0x01, 0x00]] {
            #expect(throws: WireError.self) { try Message(frame: Frame(.thumbnailFetch, flags: Frame.ignorableFlag, payload: payload)) }
        }
    }
}
