import Foundation
@testable import GalleryNode
import Testing

/// What a node takes from a peer as a thumbnail (protocol.md, section 8.1): a JPEG whose frame's
/// long edge is at most the size asked, nothing else; and the hex of a hash as the wire's bytes.
@Suite("thumbnails received from peers: the checks")
struct ThumbnailReplicatorCheckTests {
    @Test("a JPEG within the size passes; one larger, garbage, a PNG or nothing does not")
    func checks() {
        let small = ThumbnailMakerTests.jpeg(width: 320, height: 200)
        #expect(ThumbnailReplicator.isThumbnail(small, size: 320))
        #expect(ThumbnailReplicator.isThumbnail(small, size: 1280))
        #expect(!ThumbnailReplicator.isThumbnail(ThumbnailMakerTests.jpeg(width: 200, height: 321), size: 320))
        #expect(!ThumbnailReplicator.isThumbnail([], size: 320))
        #expect(!ThumbnailReplicator.isThumbnail(Array("not a picture".utf8), size: 320))
        #expect(!ThumbnailReplicator.isThumbnail(ThumbnailMakerTests.png(width: 10, height: 10, zlib: ThumbnailMakerTests.stored([0])), size: 320))
        // A header alone, declaring 65535x65535: refused by its size, nothing decoded.
        var huge = small
        let frame = ThumbnailMakerTests.marker(0xC0, in: small)!
        huge.replaceSubrange((frame + 5)..<(frame + 9), with: [0xFF, 0xFF, 0xFF, 0xFF])
        #expect(!ThumbnailReplicator.isThumbnail(huge, size: 1280))
    }

    @Test("hex to bytes: the 32 bytes of a hash")
    func hex() {
        let hash = String(repeating: "0f", count: 16) + String(repeating: "a1", count: 16)
        #expect(ThumbnailReplicator.bytes(ofHex: hash) == [UInt8](repeating: 0x0F, count: 16) + [UInt8](repeating: 0xA1, count: 16))
    }
}
