@testable import GalleryNode
import Synchronization

/// A node log whose lines a test reads back.
final class RecordedLines: Sendable {
    private let lines = Mutex<[String]>([])

    /// The log that records into this.
    var log: NodeLog {
        NodeLog { [self] line in lines.withLock { $0.append(line) } }
    }

    /// The lines written so far.
    var all: [String] {
        lines.withLock { $0 }
    }
}
