@testable import GalleryNode
import Synchronization
import Testing

/// The node's log quotes what peers and unauthenticated clients send: it must reach a terminal as
/// visible escapes, never as control characters.
@Suite("Node log")
struct NodeLogTests {
    @Test("Control characters in a logged line (a peer's error text, a title) are escaped before the sink sees them")
    func controlCharactersEscaped() {
        let lines = Mutex<[String]>([])
        let log = NodeLog { line in lines.withLock { $0.append(line) } }
        log("peer reported protocol_error: \u{1B}[2J\u{1B}[31mforged\rnode: all good\u{85}")
        let written = lines.withLock { $0 }
        #expect(written == ["peer reported protocol_error: \\u{1B}[2J\\u{1B}[31mforged\\rnode: all good\\u{85}"])
        #expect(!written[0].unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
    }
}
