import Foundation
import GalleryIO

/// Where a node reports what happens to its connections: one line per event. Every line is made
/// safe for a terminal first (`TerminalText`): lines quote what peers and unauthenticated clients
/// send (error texts, names, titles), which must not move the cursor or forge other lines.
package struct NodeLog: Sendable {
    private let sink: @Sendable (String) -> Void

    /// A log that passes each line to `sink`.
    package init(_ sink: @escaping @Sendable (String) -> Void) {
        self.sink = sink
    }

    /// Writes each line to standard error.
    package static let standardError = NodeLog { line in
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    /// Drops every line.
    package static let silent = NodeLog { _ in }

    package func callAsFunction(_ line: String) {
        sink(TerminalText.escaped(line))
    }
}
